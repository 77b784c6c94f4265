/**
 * Frames on the headless shell come from the service, not from the compositor's clock.
 *
 * A print needs no frame: Chromium lays the document out and paints it for paper by itself. Left to its
 * clock, the shell's compositor still draws every screen the document passes through while it loads,
 * pictures nobody sees. Without them the bench's invoice takes the shell 36 ms of CPU a render where a
 * bare puppeteer loop takes 48: the compositor and display threads and the raster workers go nearly
 * idle, and the renderer paints twice a render (for paper) instead of about four times (a Chromium
 * trace of 60 renders each, `npm run bench -- render-frames`). So slots on the shell are created under frame control (slot.ts), and a document gets frames only
 * while it is prepared, and only when it may run script (page-script.ts: turnsAfterLoad). A document
 * without script cannot tell: nothing of it runs at a frame. One with script gets them at a display's
 * pace, drawn as a screen's would be: requestAnimationFrame, ResizeObserver, IntersectionObserver and
 * paint timing work for it as on full Chromium.
 */
import type { Browser, CDPSession } from 'puppeteer-core';

/** A frame every 1/60 s, as a screen would ask for them. */
export const FRAME_INTERVAL_MS = 1000 / 60;

/**
 * Sends frames to the pages of one browser, one frame at a time across all of them: the shell's display
 * compositor takes one outside frame at a time, and two pages' frames that overlap end the GPU process
 * ("Got overlapping IssueExternalBeginFrame"), and the browser after six such ends. A page whose script
 * holds its main thread does not hold the others' frames: its frame completes without a main-thread
 * update (two pages, one in a 3 s busy loop: the other still got 62 frames a second).
 */
export class FrameSender {
  private last: Promise<unknown> = Promise.resolve();

  /**
   * Sends the page a frame every FRAME_INTERVAL_MS until the returned function is called (the next once
   * the last is done). A frame that fails (the document is navigating) is followed by the next; a
   * session that closed ends the frames.
   */
  pump(session: CDPSession): () => void {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const next = () => {
      if (stopped) return;
      const started = performance.now();
      const sent = this.last
        .then(() => session.send('HeadlessExperimental.beginFrame', { interval: FRAME_INTERVAL_MS }))
        .then(
          () => true,
          () => !session.detached,
        );
      this.last = sent;
      void sent.then((goOn) => {
        if (!goOn || stopped) return;
        timer = setTimeout(next, Math.max(0, FRAME_INTERVAL_MS - (performance.now() - started)));
      });
    };
    next();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }
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
