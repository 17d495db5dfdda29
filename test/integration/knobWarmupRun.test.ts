// A run whose compile knob reports its warm-up (torch.compile's first call) has that warm-up in its summary, when it
// ends and when its summary is made again from what it stored. Torch 1.13 here has no torch.compile, so the script
// reports as the knobs' Python side does on torch 2 (resources/python/tuning_bench_knobs/forward.py: `warmupUntil`).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, tempCore } from '../helpers/tempCore.js';

const harness = tempCore({ env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
const dir = makeTempDir('tb-knob-warmup-');
afterAll(async () => {
  await harness.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * nanoGPT's lines with their own step times: step 1 compiles for 1.2 s, step 20 took 2 s (a checkpoint, slower still).
 * The times printed are the script's, as nanoGPT's are, and fixed here: a loaded machine changes none of them.
 */
const SCRIPT = `
import json, os, time
knobs = json.loads(os.environ["TUNING_BENCH_KNOBS"])
for step in range(1, 41):
    time.sleep(1.2 if step == 1 else 0.03)
    if step == 1:
        with open(knobs["out"], "a") as out:
            out.write(json.dumps({"knob": "compile", "status": "applied", "what": "compiled", "file": __file__, "line": 7, "warmupUntil": time.time()}) + "\\n")
    printed_ms = 1200.0 if step == 1 else 2000.0 if step == 20 else 30.0 + step % 3
    print("iter %d: loss %.4f, time %.2fms" % (step, 3 - step / 40, printed_ms), flush=True)
`;

describe("the compile knob's warm-up in a run's summary", () => {
  it('is warm-up when the run ends and when its summary is made again, though a later step is slower', async () => {
    fs.writeFileSync(path.join(dir, 'train.py'), SCRIPT);
    const { core } = harness;
    const started = core.startCommand({ adHoc: { command: ['/usr/bin/python3', 'train.py'], cwd: dir }, extraConfig: { 'knob.compile': 'on' } });
    const ran = await core.runner.waitForExit(started.id);
    expect(ran.status).toBe('succeeded');
    expect(ran.knobs?.warmupUntilMs).toBeGreaterThan(Date.parse(ran.startedAt));
    expect(ran.summary.warmup).toMatchObject({ rule: 'auto', steps: 1 });
    expect(ran.summary.warmup?.reason).toMatch(/^the first step only: torch\.compile's first call \(the compile knob\) ran until \d+\.\d s into the run$/u);
    expect(ran.summary.steadySteps).toBe(39);

    const again = await core.handlers['runs.setSteps']({ id: ran.id, warmupSteps: null, excludeSteps: [] }, { subscriberId: null });
    expect(again.summary.warmup).toMatchObject({ steps: 1, reason: ran.summary.warmup!.reason });
  }, 60_000);
});
