// nvidia-smi's answers to control commands, as published (test/fixtures/nvidia-smi/messages.md).
import { describe, expect, it } from 'vitest';
import { interpretControlAnswer } from '../../../electron/core/gpu-control/answers.js';
import type { GpuOperation } from '../../../electron/shared/gpuSettings.js';

const PM: GpuOperation = { kind: 'persistence', enabled: true };
const LGC: GpuOperation = { kind: 'lockClocks', range: { minMHz: 1740, maxMHz: 1740 } };
const PL: GpuOperation = { kind: 'powerLimit', watts: 200 };

describe('interpretControlAnswer', () => {
  it('reads both persistence wordings and "already" as success', () => {
    expect(interpretControlAnswer(PM, 0, 'Enabled persistence mode for GPU 00000000:03:00.0.\nAll done.\n')).toMatchObject({ ok: true, outcome: 'applied' });
    expect(interpretControlAnswer(PM, 0, 'Enabled Legacy persistence mode for GPU 00000000:00:15.0.\nAll done.\n')).toMatchObject({ ok: true });
    expect(interpretControlAnswer(PM, 0, 'Persistence mode is already Disabled for GPU 00000000:08:00.0.\nAll done.\n')).toMatchObject({
      ok: true,
      outcome: 'already',
    });
  });

  it('keeps the clocks nvidia-smi echoes, which need not be the ones asked for, and its warnings', () => {
    const answer = interpretControlAnswer(
      LGC,
      0,
      'GPU clocks set to "(gpuClkMin 0, gpuClkMax 1860)" for GPU 00000000:03:00.0\n\nWarning: persistence mode is disabled on device 00000009:01:00.0. See the Known Issues section of the nvidia-smi(1) man page for more information. Run with [--help | -h] switch to get more information on how to enable persistence mode.\nAll done.\n',
    );
    expect(answer).toMatchObject({ ok: true, echoedRange: { minMHz: 0, maxMHz: 1860 } });
    expect(answer.warnings).toEqual(['Warning: persistence mode is disabled on device 00000009:01:00.0.']);
    expect(interpretControlAnswer(LGC, 0, 'Memory clocks set to "(memClkMin 8001, memClkMax 8001)" for GPU 00000005:09:00.0\nAll done.\n').echoedRange).toEqual(
      {
        minMHz: 8001,
        maxMHz: 8001,
      },
    );
  });

  it('treats "not supported ... moving on" as a failure although it ends All done (exit 0)', () => {
    const k80 = 'Setting locked GPU clocks is not supported for GPU 00000000:05:00.0.\nTreating as warning and moving on.\nAll done.\n';
    expect(interpretControlAnswer(LGC, 0, k80)).toMatchObject({ ok: false, outcome: 'not-supported' });
    const laptop = 'Changing power management limit is not supported for GPU: 00000000:01:00.0.\nTreating as warning and moving on.\nAll done.\n';
    expect(interpretControlAnswer(PL, 0, laptop)).toMatchObject({ ok: false, outcome: 'not-supported' });
  });

  it('names permission refusals of each command', () => {
    for (const [op, text] of [
      [PM, 'Unable to set persistence mode for GPU 00000000:08:00.0: Insufficient Permissions\n'],
      [LGC, 'The current user does not have permission to change clocks for GPU 00000000:01:00.0.\nTerminating early due to previous errors.\n'],
      [PL, 'Failed to set power management limit for GPU 00000000:01:00.0: Insufficient Permissions\n'],
    ] as const) {
      const answer = interpretControlAnswer(op, 4, text);
      expect(answer).toMatchObject({ ok: false, outcome: 'permission' });
      expect(answer.detail).not.toMatch(/Terminating early/u);
    }
  });

  it('names invalid values, a missing driver, a lost GPU and unknown errors', () => {
    expect(
      interpretControlAnswer(
        PL,
        2,
        'Provided power limit 50.00 W is not a valid power limit which should be between 200.00 W and 700.00 W for GPU 00000000:06:00.0\nTerminating early due to previous errors.\n',
      ),
    ).toMatchObject({ outcome: 'invalid-value' });
    expect(
      interpretControlAnswer(
        PM,
        9,
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n",
      ),
    ).toMatchObject({ outcome: 'no-driver' });
    expect(
      interpretControlAnswer(PM, 15, 'Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU\n'),
    ).toMatchObject({
      outcome: 'gpu-lost',
    });
    expect(interpretControlAnswer(PM, 255, 'Unable to set persistence mode for GPU 00000000:11:00.0: Unknown Error\n')).toMatchObject({
      outcome: 'failed',
      detail: 'Unable to set persistence mode for GPU 00000000:11:00.0: Unknown Error',
    });
    expect(interpretControlAnswer(PM, 6, 'No devices were found\n')).toMatchObject({ outcome: 'no-device' });
  });
});
