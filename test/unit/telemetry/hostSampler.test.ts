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
    /** The engine's own children: the run's first process, helpers; and its waited-for count (cutime + cstime). */
    ownChildren: { children: [] as Array<{ pid: number; cpuTicks: number; helper: boolean }>, waitedTicks: 0 },
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
    ownChildren: () => structuredClone(state.ownChildren),
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
  /**
   * Half a second of the machine 1.5 cores busy (and `othersTicks` more), the run's processes as `members` (all of
   * that work theirs, or gone), the engine's own children as `children` and its waited-for count grown by `reapedTicks`.
   */
  const halfSecondWithMembers = (
    members: Array<{ pid: number; cpuTicks: number }>,
    { children = state.ownChildren.children, reapedTicks = 0, othersTicks = 0 } = {},
  ) => {
    state.cpu = {
      busy: state.cpu.busy.map((v, i) => v + [75 + othersTicks, 40 + othersTicks / 2, 35 + othersTicks / 2][i]!),
      iowait: state.cpu.iowait,
      total: state.cpu.total.map((v, i) => v + [100, 50, 50][i]!),
    };
    state.members = members;
    state.ownChildren = { children, waitedTicks: state.ownChildren.waitedTicks + reapedTicks };
  };
  /** Half a second of a run on 1.5 cores beside the engine's own children (`usedTicks` more of the machine's busy time). */
  const halfSecondBesideChildren = (children: Array<{ pid: number; cpuTicks: number; helper: boolean }>, usedTicks: number, reapedTicks = 0) => {
    state.cpu = {
      busy: state.cpu.busy.map((v, i) => v + [75 + usedTicks, 40 + usedTicks / 2, 35 + usedTicks / 2][i]!),
      iowait: state.cpu.iowait,
      total: state.cpu.total.map((v, i) => v + [100, 50, 50][i]!),
    };
    state.groupTicks += 75;
    state.ownChildren = { children, waitedTicks: state.ownChildren.waitedTicks + reapedTicks };
  };
  return { counters, halfSecondOfWork, halfSecondBesideOthers, halfSecondWithMembers, halfSecondBesideChildren };
}

function sampler(clock: ManualClock, runStartedAtMs: number) {
  const { counters, ...work } = handCounters();
  const samples: HostSample[] = [];
  const host = new HostSampler(4242, runStartedAtMs, (sample) => samples.push(sample), 500, { clock, counters });
  return { host, samples, ...work };
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
    // The shell that leads the run (500 ticks, the engine's child) and the trainer it started; then the shell ends,
    // reaped by the engine (its 500 ticks move into the engine's waited-for count) while others use 0.6 cores.
    halfSecondWithMembers(
      [
        { pid: 100, cpuTicks: 500 },
        { pid: 101, cpuTicks: 75 },
      ],
      { children: [{ pid: 100, cpuTicks: 500, helper: false }] },
    );
    clock.advance(500);
    halfSecondWithMembers([{ pid: 101, cpuTicks: 150 }], { children: [], reapedTicks: 500, othersTicks: 30 });
    clock.advance(500);
    // Then the trainer ends too, before the sampler is closed: a reading of no processes (it read 28.7 cores of others).
    halfSecondWithMembers([]);
    clock.advance(500);
    host.close();
    expect(samples).toHaveLength(2);
    expect(samples.map((s) => s.procCpu)).toEqual([150, 150]);
    expect(samples.map((s) => s.otherCpuCores)).toEqual([0, 0.6]);
  });

  it("counts the engine's own helpers as its work, live or ended (the Python probe's import torch), and another run as others'", () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    const { host, samples, halfSecondBesideChildren } = sampler(clock, clock.wallMs());
    // The probe starts and uses 0.8 cores of the half second; another run (not a helper: a session of its own) 0.4.
    halfSecondBesideChildren(
      [
        { pid: 300, cpuTicks: 40, helper: true },
        { pid: 400, cpuTicks: 1000, helper: false },
      ],
      60,
    );
    clock.advance(500);
    // The probe ends after 30 ticks more, waited for by the engine (its whole 70 move there); the other run goes on.
    halfSecondBesideChildren([{ pid: 400, cpuTicks: 1020, helper: false }], 50, 70);
    clock.advance(500);
    host.close();
    // Before: 1.2 and 1.0 cores of others (the probe's and the other run's).
    expect(samples.map((s) => s.otherCpuCores)).toEqual([0.4, 0.4]);
    expect(samples.map((s) => s.procCpu)).toEqual([150, 150]);
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
