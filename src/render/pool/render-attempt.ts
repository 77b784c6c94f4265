/**
 * One render's attempt: a slot taken from the supervised Chromium, the document printed in it within the
 * render timeout, the outcome told apart (the document's fault, Chromium's, or ours), and one more attempt
 * on the next Chromium when the first one stopped under the render.
 */

import { RenderError } from '../../errors.js';
import type { EgressRefusal } from '../../net/egress-refusal.js';
import { countPdfPages } from '../../pdf/index.js';
import type { Claim } from '../../pdf/profiles/types.js';
import type { ReportEntry } from '../../report/report.js';
import type { ServiceLog } from '../../service-log.js';
import { withAbort, withTimeout } from '../../with-timeout.js';
import { BrowserCrashed, type Instance, InstanceGone, type SlotWaiter } from '../browser/browser-instance.js';
import type { RenderSlot } from '../browser/slot.js';
import type { ProfiledPdf } from '../document/document-profiles.js';
import { type PrintedDocument, printInSlot, type RenderWarningLog } from '../document/renderer.js';
import { ReportCollector } from '../report/report-collector.js';
import { namedRequests } from '../report/report-words.js';
import type { PrintParams } from '../request/options.js';
import { type ChromiumSupervisor, noSlot } from './chromium-supervisor.js';

/**
 * A render that timed out while its document was loading names what it was waiting for (`render exceeded
 * 30000 ms; still loading then: logo.png`): the load event waits for every image, style sheet, script and
 * frame, so that is what a user would fix or serve faster.
 */
function stillLoading(err: RenderError, urls: readonly string[]): RenderError {
  if (err.code !== 'RENDER_TIMEOUT' || urls.length === 0) return err;
  return new RenderError('RENDER_TIMEOUT', `${err.message}; still loading then: ${namedRequests(urls)}`, undefined, {
    cause: err,
  });
}

/** A finished render: the PDF, its page count, what the document could not get (its report's entries), and the standards the PDF claims. */
export interface RenderResult {
  pdf: Buffer;
  pages: number;
  warnings: ReportEntry[];
  /** What the PDF claims to conform to (docs/standards.md); empty for a document that declares nothing. */
  claims: Claim[];
  /** The PDF's Title (the document's `<title>`, cleaned as the Info dictionary has it); absent when it has none. */
  title?: string;
}

/** What every attempt of the pool shares. */
export interface AttemptOptions {
  timeoutMs: number;
  /** After the load event, how long requests still pending are waited for before printing regardless. */
  idleMaxMs: number;
  /** Collect each render's report; off only to measure what collecting costs (bench/render.ts). */
  report: boolean;
  log?: ServiceLog;
}

/** One document to render: its print parameters, the signal that ends it, and where it warns. */
export interface RenderJob {
  html: string;
  params: PrintParams;
  stop: AbortSignal;
  log?: RenderWarningLog;
}

/** Longest wait for a free slot (e.g. while Chromium restarts) before the render is refused with 503. */
const SLOT_WAIT_MS = 30_000;

/** Renders in slots of the supervised Chromium, each render tried at most twice. */
export class RenderAttempts {
  constructor(
    private readonly supervisor: ChromiumSupervisor,
    private readonly opts: AttemptOptions,
  ) {}

  /**
   * One render in a slot; when its Chromium stops under it (not the document's fault, as far as one can
   * tell), once more on the next Chromium, with a render timeout of its own. A second crash is 503.
   */
  async attempt(job: RenderJob, turnAt: number, retried = false): Promise<RenderResult> {
    // Waiting for a slot (a Chromium restart, a slot being replaced) is queue time, not render time.
    const [instance, slot] = await this.takeSlot(turnAt + Math.max(this.opts.timeoutMs, SLOT_WAIT_MS), job.stop);
    try {
      return await this.runInSlot(instance, slot, job, Date.now() + this.opts.timeoutMs);
    } catch (err) {
      if (!(err instanceof BrowserCrashed) || retried || this.supervisor.closing || job.stop.aborted) throw err;
      this.opts.log?.warn({ chromiumPid: instance.launched.pid }, 'chromium stopped during a render; trying it once more');
      return this.attempt(job, Date.now(), true);
    }
  }

  private async takeSlot(deadline: number, stop: AbortSignal): Promise<[Instance, RenderSlot]> {
    for (;;) {
      const instance = await this.supervisor.instanceBy(deadline, stop);
      const ready = instance.take();
      if (ready) return [instance, ready];
      let waiter: SlotWaiter | undefined;
      let handed: RenderSlot | undefined;
      try {
        const slot = await this.withDeadline(
          new Promise<RenderSlot>((resolve, reject) => {
            waiter = {
              resolve: (slot) => {
                handed = slot;
                resolve(slot);
              },
              reject,
            };
            instance.wait(waiter);
          }),
          deadline,
          stop,
          noSlot,
        );
        return [instance, slot];
      } catch (err) {
        if (waiter) instance.withdraw(waiter);
        // Handed a slot in the same turn as the render gave up: it is clean, the next render takes it.
        if (handed) instance.giveBack(handed, true);
        if (!(err instanceof InstanceGone)) throw err;
      }
    }
  }

  private withDeadline<T>(work: Promise<T>, deadline: number, stop: AbortSignal, expiry?: () => RenderError): Promise<T> {
    return withAbort(
      withTimeout(
        work,
        deadline - Date.now(),
        expiry ?? (() => new RenderError('RENDER_TIMEOUT', `render exceeded ${this.opts.timeoutMs} ms`)),
      ),
      stop,
    );
  }

  private async runInSlot(instance: Instance, slot: RenderSlot, job: RenderJob, deadline: number): Promise<RenderResult> {
    instance.busy += 1;
    instance.renders += 1;
    let clean = false;
    const report = this.opts.report ? new ReportCollector(slot.session) : undefined;
    const refusedBefore = slot.egress.refusals.length;
    let refusals: EgressRefusal[] = [];
    const work = printInSlot(slot, job.html, job.params, {
      deadline,
      timeoutMs: this.opts.timeoutMs,
      log: job.log,
      idleMaxMs: this.opts.idleMaxMs,
      report,
    });
    work.catch(() => undefined);
    let printed: PrintedDocument;
    try {
      printed = await this.withDeadline(withAbort(withAbort(work, instance.died), slot.crash), deadline, job.stop);
      clean = true;
    } catch (err) {
      const loading = report?.addresses(slot.requests.keys()) ?? [];
      report?.finish([]);
      // Canceled or drained: the slot is not clean, so giving it back closes its page (and whatever the
      // document still runs) and a fresh one takes its place.
      if (job.stop.aborted) throw job.stop.reason;
      throw stillLoading(this.classify(err, instance, slot), loading);
    } finally {
      // What the page did is all known: the slot goes back (to be reset for the next render) before the PDF is finished.
      refusals = slot.egress.refusals.slice(refusedBefore);
      report?.stop();
      instance.busy -= 1;
      instance.giveBack(slot, clean);
      this.supervisor.rendered(instance);
    }
    // The properties and the declared profiles (a page pass, XMP, the OutputIntent) are Node's work on
    // the PDF alone: the slot's reset runs in Chromium meanwhile.
    let made: ProfiledPdf;
    try {
      made = await printed.finish();
    } catch (err) {
      report?.finish([]);
      if (err instanceof RenderError) throw err;
      this.opts.log?.error({ err }, 'render failed unexpectedly');
      throw new RenderError('INTERNAL_ERROR', 'the render failed unexpectedly', undefined, { cause: err });
    }
    const warnings = report?.finish(refusals) ?? [];
    const { pdf, claims } = made;
    const { title } = printed;
    return { pdf, pages: countPdfPages(pdf), warnings, claims, ...(title === undefined ? {} : { title }) };
  }

  private classify(err: unknown, instance: Instance, slot: RenderSlot): RenderError {
    if (instance.dead || !instance.launched.browser.connected) return new BrowserCrashed({ cause: err });
    if (err instanceof RenderError) return err;
    if (slot.crashed) return new RenderError('RENDER_FAILED', 'the document crashed the renderer', undefined, { cause: err });
    this.opts.log?.error({ err }, 'render failed unexpectedly');
    return new RenderError('INTERNAL_ERROR', 'the render failed unexpectedly', undefined, { cause: err });
  }
}
