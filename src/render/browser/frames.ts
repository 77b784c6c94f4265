/**
 * Frames on the headless shell come from the service, not from the compositor's clock.
 *
 * A print needs no frame: Chromium lays the document out and paints it for paper by itself. Left to its
 * clock, the shell's compositor still draws every screen the document passes through while it loads,
 * pictures nobody sees. Without them the bench's invoice takes the shell 36 ms of CPU a render where a
 * bare puppeteer loop takes 48: the compositor and display threads and the raster workers go nearly
 * idle, and the renderer paints twice a render (for paper) instead of about four times (a Chromium
 * trace of 60 renders each, `npm run bench -- render-frames`). So slots on the shell are created under
 * frame control (slot.ts), and a document gets frames only while it is prepared, drawn only when it may
 * run script (page-script.ts: turnsAfterLoad). A document without script cannot tell: nothing of it runs
 * at a frame; it gets frames that lay it out, drawing nothing, only while it loads from the network
 * (framesWhileLoading). One with script gets them at a display's pace, drawn as a screen's would be:
 * requestAnimationFrame, ResizeObserver, IntersectionObserver and paint timing work for it as on full
 * Chromium.
 */
import type { Browser, CDPSession } from 'puppeteer-core';

/** A frame every 1/60 s, as a screen would ask for them. */
export const FRAME_INTERVAL_MS = 1000 / 60;
/** A frame that takes longer than this overran: its page's script held every page's frames meanwhile. */
export const FRAME_DEADLINE_MS = 50;
/**
 * After a frame that overran by taking `d` ms, its page waits this many times `d` before its next frame
 * while other pages want frames: a page whose every frame is slow gets at most a quarter of the frame time.
 */
const OVERRUN_YIELD = 3;

/** One page's share of its browser's frames. */
interface Pump {
  session: CDPSession;
  /** Frames that lay the document out but draw nothing (`noDisplayUpdates`). */
  layoutOnly: boolean;
  /** When (performance.now()) its next frame is due at a display's pace. */
  due: number;
  /** Until when it lets other pages go first, after a frame that overran. */
  yieldUntil: number;
}

/**
 * Sends frames to the pages of one browser, one frame at a time across all of them, and shares them out
 * as renders are shared. One at a time, because the shell's display compositor counts every page's
 * renderer in every page's frame (they share one begin-frame source id): a frame sent to one page while
 * another page's renderer is inside a frame ends the GPU process ("Got overlapping IssueExternalBeginFrame";
 * two pages, each sent frames at 60 a second without waiting for the other's: the GPU process ended
 * within 1.5 s, six times, and the browser with it). And a frame ends only when its page's main thread
 * has run it: a document spending 250 ms in each requestAnimationFrame makes each of its frames last
 * 250 ms (`noDisplayUpdates` too), during which no other page can have one. So a page whose frame
 * overran FRAME_DEADLINE_MS waits OVERRUN_YIELD times as long before its next while other pages want
 * frames (alone, it gets them at its own pace): such a page takes at most a quarter of the frame time,
 * where taking turns left a page beside it 9 frames in 2 s. What one slow frame holds it still holds: no frame
 * can be taken back once it started.
 */
export class FrameSender {
  private readonly pumps = new Set<Pump>();
  /** A frame is out: nothing else may be sent until it returns. */
  private sending = false;
  private timer: NodeJS.Timeout | undefined;

  /**
   * Sends the page frames at a display's pace, shared with the browser's other pages, until the returned
   * function is called (a frame already sent is let finish). A frame that fails (the document is
   * navigating) is followed by the next; a session that closed ends the frames.
   */
  pump(session: CDPSession, layoutOnly = false): () => void {
    const pump: Pump = { session, layoutOnly, due: performance.now(), yieldUntil: 0 };
    this.pumps.add(pump);
    this.schedule();
    return () => {
      this.pumps.delete(pump);
      this.schedule();
    };
  }

  /** Sends the next frame now, or sets a timer for when it is due. */
  private schedule(): void {
    if (this.sending) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.next();
    if (!next) return;
    const wait = next.at - performance.now();
    if (wait > 0) this.timer = setTimeout(() => this.schedule(), wait);
    else void this.send(next.pump);
  }

  /** The page whose frame is due first: one that overran goes after the others until its yield is over. */
  private next(): { pump: Pump; at: number } | undefined {
    const shared = this.pumps.size > 1;
    let first: { pump: Pump; at: number } | undefined;
    for (const pump of this.pumps) {
      const at = shared ? Math.max(pump.due, pump.yieldUntil) : pump.due;
      if (!first || at < first.at) first = { pump, at };
    }
    return first;
  }

  private async send(pump: Pump): Promise<void> {
    this.sending = true;
    const started = performance.now();
    try {
      await pump.session.send('HeadlessExperimental.beginFrame', {
        interval: FRAME_INTERVAL_MS,
        ...(pump.layoutOnly ? { noDisplayUpdates: true } : {}),
      });
    } catch {
      if (pump.session.detached) this.pumps.delete(pump);
    }
    const ended = performance.now();
    const took = ended - started;
    pump.due = started + FRAME_INTERVAL_MS;
    pump.yieldUntil = took > FRAME_DEADLINE_MS ? ended + OVERRUN_YIELD * took : 0;
    this.sending = false;
    this.schedule();
  }
}

/**
 * Layout-only frames (nothing drawn) for a page whose document runs no script, from its first network
 * request until the returned function is called. Without any frame the renderer never lays the loading
 * document out, and its images keep the low priority they are requested with until layout finds them on
 * the screen: the network service starts ten such requests at a time, so 100 images on 100 unreachable
 * hosts failed in ten rounds of a refused tunnel each (a resolver 300 ms away: 2.5-2.8 s, where full
 * Chromium, whose compositor lays the page out as it loads, took 1.0-1.4 s). The frames cost a document
 * whose requests fail at once some time: 100 images on a closed loopback port took 2.7 s against 2.3 s
 * (medians of 15, two cores at a load of 26). One frame at the first request did not raise the images'
 * priority. A document that loads nothing (the invoice) still gets no frame at all.
 */
export function framesWhileLoading(sender: FrameSender, session: CDPSession): () => void {
  let stop: (() => void) | undefined;
  const start = (event: { request: { url: string } }): void => {
    // A data: or blob: resource is read from memory: nothing waits on the network for it.
    if (/^(data|blob):/i.test(event.request.url)) return;
    session.off('Network.requestWillBeSent', start);
    stop = sender.pump(session, true);
  };
  session.on('Network.requestWillBeSent', start);
  return () => {
    session.off('Network.requestWillBeSent', start);
    stop?.();
  };
}

const senders = new WeakMap<Browser, FrameSender>();

/** The frame sender of a browser's pages (one per browser: see FrameSender). */
export function frameSender(browser: Browser): FrameSender {
  let sender = senders.get(browser);
  if (!sender) {
    sender = new FrameSender();
    senders.set(browser, sender);
  }
  return sender;
}
