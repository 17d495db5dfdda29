// A finished run's summary: steady throughput and step time, the warm-up left out, steps, loss, and their source; then
// what the GPU and host did meanwhile (utilisation, VRAM, power, energy, throttling, CPU, RSS) and the engine's hints.
import type { RunSummary } from '../../../electron/shared/api.js';
import { formatNumber } from '../shared/format.js';
import {
  energyPerKiloTokens,
  energySourceText,
  energyText,
  hasTrainingSummary,
  lossText,
  outliersText,
  sourceText,
  stepTimeText,
  throttleText,
  throughputText,
  warmupText,
  withUnit,
} from './summaryText.js';
import './SummaryCard.css';

/** True when there is anything for the card to show: training numbers, telemetry, or hints. */
export function hasSummary(summary: RunSummary): boolean {
  return hasTrainingSummary(summary) || summary.gpu !== null || summary.host !== null || summary.hints.length > 0;
}

function GpuSummary({ gpu, perKiloTokens }: { gpu: NonNullable<RunSummary['gpu']>; perKiloTokens: number | null }) {
  const source = energySourceText(gpu.energySource);
  const throttled = (gpu.throttledSeconds ?? 0) > 0;
  return (
    <>
      <div className="summary-item" data-testid="summary-gpu">
        <dt>GPU util</dt>
        <dd className="summary-value" data-value={gpu.utilMean ?? undefined} title="Mean and peak GPU utilisation over the run">
          {withUnit(gpu.utilMean, '%')} <span className="summary-sub">mean · peak {withUnit(gpu.utilPeak, '%')}</span>
        </dd>
      </div>
      <div className="summary-item">
        <dt>VRAM peak</dt>
        <dd className="summary-value" data-testid="summary-vram" data-value={gpu.vramPeakMiB ?? undefined}>
          {withUnit(gpu.vramPeakMiB, 'MiB')}
        </dd>
      </div>
      <div className="summary-item">
        <dt>Power mean</dt>
        <dd className="summary-value" data-testid="summary-power">
          {withUnit(gpu.powerMeanW, 'W')}
        </dd>
      </div>
      <div className="summary-item wide">
        <dt>Energy</dt>
        <dd className="summary-value" data-testid="summary-energy" data-value={gpu.energyJ ?? undefined}>
          <span>{energyText(gpu.energyJ)}</span>
          {source && gpu.energyJ !== null && <span className="summary-sub">from {source}</span>}
          {perKiloTokens !== null && (
            <span
              className="summary-sub"
              data-testid="summary-energy-per-token"
              title="Energy over tokens, the tokens estimated as the steady throughput times the run's duration"
            >
              ≈ {formatNumber(perKiloTokens)} J / 1k tokens
            </span>
          )}
        </dd>
      </div>
      <div className="summary-item wide">
        <dt>Throttled</dt>
        <dd
          className={`summary-value ${throttled ? 'throttled' : ''}`}
          data-testid="summary-throttle"
          title="Seconds the GPU ran slowed by a power cap, heat or a hardware slowdown"
        >
          {throttleText(gpu)}
        </dd>
      </div>
      <div className="summary-item">
        <dt>SM clock mean</dt>
        <dd className="summary-value" data-testid="summary-sm-clock">
          {withUnit(gpu.smClockMeanMHz, 'MHz')}
        </dd>
      </div>
      <div className="summary-item">
        <dt>Temp peak</dt>
        <dd className="summary-value" data-testid="summary-temp">
          {withUnit(gpu.tempPeakC, '°C')}
        </dd>
      </div>
    </>
  );
}

export function SummaryCard({ summary, durationMs = null }: { summary: RunSummary; durationMs?: number | null }) {
  const outliers = outliersText(summary);
  const training = hasTrainingSummary(summary);
  const { gpu, host } = summary;
  return (
    <section className="summary-card" data-testid="summary-card" aria-label="Run summary">
      {training && (
        <dl className="summary-grid">
          <div className="summary-item wide">
            <dt>Steady throughput</dt>
            <dd
              className="summary-value"
              data-testid="summary-throughput"
              data-value={summary.throughput.median ?? undefined}
              title="Median over the steady steps, with their interquartile range (IQR)"
            >
              {throughputText(summary)}
            </dd>
          </div>
          <div className="summary-item">
            <dt>Step time</dt>
            <dd className="summary-value" data-testid="summary-step-time" title="Median over the steady steps">
              {stepTimeText(summary)}
            </dd>
          </div>
          <div className="summary-item">
            <dt>Steps</dt>
            <dd className="summary-value" data-testid="summary-steps">
              {summary.steps ?? '–'}
            </dd>
          </div>
          <div className="summary-item wide">
            <dt>Loss</dt>
            <dd className="summary-value" data-testid="summary-loss">
              <span>{lossText(summary)}</span>
              {summary.lossFell === true && <span className="loss-fell">✓ fell</span>}
              {summary.lossFell === false && (
                <span className="loss-warning" title="The last tenth of the losses is not below the first tenth">
                  ⚠ did not fall
                </span>
              )}
              {summary.nanDetected && (
                <span className="badge nan-badge" data-testid="summary-nan">
                  NaN/Inf
                </span>
              )}
            </dd>
          </div>
        </dl>
      )}
      {(gpu !== null || host !== null) && (
        <dl className="summary-grid telemetry-grid" aria-label="Telemetry summary">
          {gpu ? (
            <GpuSummary gpu={gpu} perKiloTokens={energyPerKiloTokens(summary, durationMs)} />
          ) : (
            <div className="summary-item wide" data-testid="summary-gpu">
              <dt>GPU</dt>
              <dd className="summary-value muted">no GPU telemetry</dd>
            </div>
          )}
          {host && (
            <div className="summary-item wide">
              <dt>Host</dt>
              <dd className="summary-value" data-testid="summary-host" title="Mean CPU over all cores; the run's peak resident memory">
                CPU {withUnit(host.cpuMean, '%')} <span className="summary-sub">mean · RSS peak {withUnit(host.rssPeakMiB, 'MiB')}</span>
              </dd>
            </div>
          )}
        </dl>
      )}
      {summary.notes.length > 0 && (
        <ul className="summary-hints" data-testid="summary-training-notes" aria-label="About these numbers">
          {summary.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      {summary.hints.length > 0 && (
        <ul className="summary-hints" data-testid="summary-hints" aria-label="Hints">
          {summary.hints.map((hint) => (
            <li key={hint}>{hint}</li>
          ))}
        </ul>
      )}
      {training && (
        <p className="summary-notes">
          <span data-testid="summary-warmup">
            Warm-up: {warmupText(summary)}
            {summary.warmup?.setBy ? ` (set by hand for the ${summary.warmup.setBy})` : ''}
          </span>
          {summary.steadySteps !== null && <span data-testid="summary-steady-steps">{summary.steadySteps} steady steps used</span>}
          {summary.slowStretches.length > 0 && (
            <span data-testid="summary-slow-stretches">
              Slow stretches kept (load or an event, not warm-up):{' '}
              {summary.slowStretches.map((s) => `steps ${s.fromStep}-${s.toStep} ${Math.round(s.slowerBy * 100)} % slower`).join('; ')}
            </span>
          )}
          {summary.fairness && (
            <span data-testid="summary-fairness" className={summary.fairness.ok ? '' : 'unfair'}>
              {summary.fairness.ok
                ? 'Fair machine: quiet host and GPU.'
                : `Not a fair machine: ${summary.fairness.issues.map((i) => `${i.kind} (${i.message})`).join('; ')}.`}
            </span>
          )}
          {outliers && <span data-testid="summary-outliers">{outliers}</span>}
          <span data-testid="summary-source">Metrics: {sourceText(summary.metricsSource)}</span>
        </p>
      )}
    </section>
  );
}
