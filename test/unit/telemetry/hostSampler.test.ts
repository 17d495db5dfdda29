// The host sampler's rates are counters' differences over the time between two readings, on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../electron/core/clock.js';
import type { HostSample } from '../../../electron/core/store/records.js';
import { HostSampler, type HostCounters } from '../../../electron/core/telemetry/hostSampler.js';

const MiB = 1024 * 1024;

/** Counters the test sets by hand: each read returns what they hold then. */
function handCounters() {
  const state = {
    cpu: { busy: [1000, 600, 400], iowait: [50, 30, 20], total: [4000, 2000, 2000] },
    groupTicks: 500,
    selfTicks: 40,
    readBytes: 10 * MiB,
    writeBytes: 4 * MiB,
    threads: new Map([
      [101, 300],
      [102, 200],
    ]),
    /** The run's processes with their counts (with waited-for children); by default one holding groupTicks. */
    members: null as Array<{ pid: number; cpuTicks: number }> | null,
  };
  const counters: HostCounters = {
    cpuTimes: () => structuredClone(state.cpu),
    group: () => ({
      rssMiB: 1536,
      threads: state.threads.size,
      readBytes: state.readBytes,
      writeBytes: state.writeBytes,
      members: state.members ?? [{ pid: 100, cpuTicks: state.groupTicks }],
    }),
    threadTicks: () => new Map(state.threads),
    memory: () => ({ usedMiB: 8000, totalMiB: 16000, swapUsedMiB: 12 }),
    selfTicks: () => state.selfTicks,
  };
  /** Half a second of a run that keeps 1.5 cores busy (one thread at 80 %), reads 1 MiB and writes 0.5 MiB. */
  const halfSecondOfWork = () => {
    state.cpu = {
      busy: state.cpu.busy.map((v, i) => v + [25, 20, 5][i]!),
      iowait: state.cpu.iowait.map((v, i) => v + [10, 5, 5][i]!),
      total: state.cpu.total.map((v, i) => v + [100, 50, 50][i]!),
    };
    state.groupTicks += 75;
    state.readBytes += MiB;
    state.writeBytes += MiB / 2;
    state.threads.set(101, state.threads.get(101)! + 40);
    state.threads.set(102, state.threads.get(102)! + 35);
  };
  /** Half a second in which others keep 1.4 cores busy beside a run on 1.5 cores and the engine on 0.1. */
  const halfSecondBesideOthers = () => {
    state.cpu = {
      busy: state.cpu.busy.map((v, i) => v + [150, 75, 75][i]!),
      iowait: state.cpu.iowait,
      total: state.cpu.total.map((v, i) => v + [200, 100, 100][i]!),
    };
    state.groupTicks += 75;
    state.selfTicks += 5;
  };
  /** Half a second of the machine 1.5 cores busy, the run's processes as `members` (all of that work theirs, or gone). */
  const halfSecondWithMembers = (members: Array<{ pid: number; cpuTicks: number }>) => {
    state.cpu = {
      busy: state.cpu.busy.map((v, i) => v + [75, 40, 35][i]!),
      iowait: state.cpu.iowait,
      total: state.cpu.total.map((v, i) => v + [100, 50, 50][i]!),
    };
    state.members = members;
  };
  return { counters, halfSecondOfWork, halfSecondBesideOthers, halfSecondWithMembers };
}

function sampler(clock: ManualClock, runStartedAtMs: number) {
  const { counters, halfSecondOfWork, halfSecondBesideOthers, halfSecondWithMembers } = handCounters();
  const samples: HostSample[] = [];
  const host = new HostSampler(4242, runStartedAtMs, (sample) => samples.push(sample), 500, { clock, counters });
  return { host, samples, halfSecondOfWork, halfSecondBesideOthers, halfSecondWithMembers };
}

describe('HostSampler', () => {
  it('turns two readings half a second apart into rates per second, at a tMs from the run start', () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    const { host, samples, halfSecondOfWork } = sampler(clock, clock.wallMs() - 2000);
    halfSecondOfWork();
    clock.advance(499);
    expect(samples).toEqual([]);
    clock.advance(1);
    expect(samples).toEqual([
      {
        tMs: 2500,
        cpuTotal: 25,
        cpuPerCore: [40, 10],
        iowait: 10,
        memUsedMiB: 8000,
        swapUsedMiB: 12,
        procCpu: 150,
        procRssMiB: 1536,
        threads: 2,
        readBytesPerSec: 2 * MiB,
        writeBytesPerSec: MiB,
        busiestThreadCpu: 80,
        otherCpuCores: 0,
      },
    ]);
    host.close();
    clock.advance(5000);
    expect(samples).toHaveLength(1);
  });

  it('counts the cores others used: the machine busy time less the run tree and the engine itself', () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    const { host, samples, halfSecondBesideOthers } = sampler(clock, clock.wallMs());
    halfSecondBesideOthers();
    clock.advance(500);
    expect(samples[0]!.otherCpuCores).toBeCloseTo(1.4, 9);
    host.close();
  });

  it("never reads the run's own count as others' work when its processes end: one that leaves, or all of them", () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    const { host, samples, halfSecondWithMembers } = sampler(clock, clock.wallMs());
    // The shell that leads the run (500 ticks) and the trainer it started; then the shell ends, reaped by the engine.
    halfSecondWithMembers([
      { pid: 100, cpuTicks: 500 },
      { pid: 101, cpuTicks: 75 },
    ]);
    clock.advance(500);
    halfSecondWithMembers([{ pid: 101, cpuTicks: 150 }]);
    clock.advance(500);
    // Then the trainer ends too, before the sampler is closed: a reading of no processes (it read 28.7 cores of others).
    halfSecondWithMembers([]);
    clock.advance(500);
    host.close();
    expect(samples).toHaveLength(2);
    expect(samples.map((s) => s.procCpu)).toEqual([150, 150]);
    expect(samples.map((s) => s.otherCpuCores)).toEqual([0, 0]);
  });

  it('keeps rates per second of elapsed time when the wall clock steps between readings', () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    const start = clock.wallMs();
    const { host, samples, halfSecondOfWork } = sampler(clock, start);
    halfSecondOfWork();
    clock.advance(500);
    halfSecondOfWork();
    // NTP sets the clock a minute forward: the next interval is still half a second of work.
    clock.setWall(new Date(clock.wallMs() + 60_000));
    clock.advance(500);
    host.close();
    expect(samples.map((s) => [s.readBytesPerSec, s.procCpu, s.busiestThreadCpu])).toEqual([
      [2 * MiB, 150, 80],
      [2 * MiB, 150, 80],
    ]);
    // tMs stays on the wall clock, the axis the run's output and its channel's stamps are on.
    expect(samples.map((s) => s.tMs)).toEqual([500, 61_000]);
  });
});
