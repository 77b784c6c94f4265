/**
 * What runs inside the page before it prints (docs/rendering.md#documents-print-as-written). One function, so
 * a render needs one round trip into the page when the document loads nothing from the network: it is
 * serialised with callExpression and must not refer to anything outside itself.
 */

/** Most rounds of "finish every animation, let the document react" before printing regardless. */
export const ANIMATION_ROUNDS = 10;

/**
 * What in a document's HTML could start something at its load that printing should let run first (a
 * zero-delay timer, a meta refresh): script (elements, event-handler attributes, javascript: URLs), a meta
 * refresh (`http-equiv`), or a frame of its own that could hold either. Matched on the HTML as sent and on
 * the safe side: a mere mention keeps the task turns, which cost the renderer about 2.5 ms of CPU a render.
 */
const MAY_START_AT_LOAD = /<(script|iframe|frame|object|embed|fencedframe)\b|http-equiv|javascript:|\bon[a-z]+\s*=/i;

/** The task turns preparePage lets pass after the load event: none for a document that can start nothing. */
export function turnsAfterLoad(html: string | null): number {
  return html === null || MAY_START_AT_LOAD.test(html) ? 2 : 0;
}

/**
 * Runs in the page. With `source`, first writes it into the fresh document: a navigation-free
 * document.write keeps the opaque about:blank origin. Beforehand, `window.pageworksReady` is made an
 * accessor, so that a document setting it to true wakes the wait below at once instead of being polled,
 * and requestAnimationFrame counts the frames the document asks for.
 * Then, on the document as it is now:
 * 1. waits for its load event and fonts, and lets `turns` task turns pass so what it starts at load (a meta
 *    refresh, a zero-delay timer) has started (turnsAfterLoad);
 * 2. late content: a thenable `pageworksReady` is awaited; `false` is waited on until it turns truthy
 *    (woken by the accessor, or polled every 50 ms in a document that navigated away from it). A rejected
 *    promise does not stop printing: its reason is returned for the log. The caller's deadline bounds it;
 * 3. fonts again (late content may use new ones), then every CSS animation, CSS transition and Web
 *    Animation is brought to its end state: a finite one is finished, an infinite one (which has no end)
 *    is cancelled, so its element shows its own style. Frames the document asked for are let run first,
 *    and it may start new animations as old ones end, so this repeats, at most `rounds` frames. Without
 *    `frames` the page gets none (a document that runs no script, on the headless shell: browser/frames.ts)
 *    and a task turn stands in for each. A frame that does not come within a second ends the rounds, and
 *    the callbacks the document still waits for are returned as `missed` (the render warns of them);
 * 4. adds `pageCss` (the request's page box, see pageBoxCss) ahead of the document's own styles.
 * The document's scripts run inside document.write and may replace globals: the waits use built-ins taken
 * from the fresh window before it runs anything, and what is returned is built with them.
 * With `watch` (report-page.ts's watchErrors), the document's script errors are watched from its start;
 * the take function is kept on `keep`, an object no global leads to, and what it took so far is returned.
 * When `keep` holds the read of the document (document-read-page.ts), its answer is returned too: what
 * the document says about itself once it is ready to print.
 */
export async function preparePage(
  source: string | null,
  pageCss: string,
  rounds: number,
  turns: number,
  frames: boolean,
  watch: ((limits: { errors: number; text: number }) => () => unknown) | null,
  limits: { errors: number; text: number },
  keep: { take?: () => unknown; read?: () => unknown; asked?: Set<number> } | null,
): Promise<{ rejected?: string; missed?: number; page?: unknown; read?: unknown }> {
  const apply = Reflect.apply;
  const slice = String.prototype.slice;
  const toText = String;
  const create = Object.create;
  const PromiseCtor = Promise;
  const wait = window.setTimeout.bind(window);
  const nextFrame = window.requestAnimationFrame.bind(window);
  // (frame() below: the timer covers a frame that never comes.)
  const listen = window.addEventListener.bind(window);
  const readyState = Object.getOwnPropertyDescriptor(Document.prototype, 'readyState')?.get?.bind(document);
  const fonts = document.fonts;
  const fontsReady = Object.getOwnPropertyDescriptor(FontFaceSet.prototype, 'ready')?.get?.bind(fonts);
  const selectAll = Document.prototype.querySelectorAll;
  const listLength = Object.getOwnPropertyDescriptor(NodeList.prototype, 'length')?.get;
  const listItem = NodeList.prototype.item;
  const setAttribute = Element.prototype.setAttribute;
  // The elements of `root` that match `selector`, read with the built-ins above (a document that redefined
  // NodeList's length would otherwise send a loop over them to the deadline).
  const select = (root: Document, selector: string): Element[] => {
    const list = apply(selectAll, root, [selector]);
    const count = listLength ? (apply(listLength, list, []) as number) : 0;
    const found: Element[] = [];
    for (let i = 0; i < count; i++) found[i] = apply(listItem, list, [i]) as Element;
    return found;
  };
  let wake: () => void = () => undefined;
  // requestAnimationFrame callbacks not run yet, as far as the call that wrote the document saw them being
  // asked for: kept on `keep` for a later call on the same document (one that navigated has neither).
  const framesAsked: Set<number> = (source === null ? keep?.asked : undefined) ?? new Set<number>();
  if (source !== null && keep) keep.asked = framesAsked;
  let loaded: Promise<unknown> | undefined;
  if (source !== null) {
    const request = window.requestAnimationFrame.bind(window);
    const cancel = window.cancelAnimationFrame.bind(window);
    window.requestAnimationFrame = (callback: FrameRequestCallback): number => {
      const id = request((time) => {
        framesAsked.delete(id);
        callback(time);
      });
      framesAsked.add(id);
      return id;
    };
    window.cancelAnimationFrame = (id: number): void => {
      framesAsked.delete(id);
      cancel(id);
    };
    let signal: unknown;
    Object.defineProperty(window, 'pageworksReady', {
      configurable: true,
      enumerable: true,
      get: () => signal,
      set: (value: unknown) => {
        signal = value;
        wake();
      },
    });
    window.name = '';
    document.open();
    // Chromium says readyState 'complete' as soon as document.close() has parsed a written document, while
    // the images and style sheets it started still load: only the load event waits for them. Listened for
    // from the open, which erases the window's listeners, so it cannot be missed.
    loaded = new PromiseCtor((resolve) => listen('load', resolve, { once: true }));
    // What must see the document's scripts from their start (the report's error listeners) goes here:
    // document.open() erases the window's listeners.
    if (watch && keep) keep.take = watch(limits);
    document.write(source);
    // A lazy image in the first screen starts loading at a frame, which may come after printing started
    // (it then printed blank; those further down the print loads itself); on paper every one is seen.
    // Made eager before the document closes, each (that the parser reached) delays the load event.
    const lazy = select(document, 'img[loading="lazy" i]');
    for (let i = 0; i < lazy.length; i++) apply(setAttribute, lazy[i], ['loading', 'eager']);
    document.close();
  }
  if (loaded !== undefined) await loaded;
  else if (readyState?.() !== 'complete') await new PromiseCtor((resolve) => listen('load', resolve, { once: true }));
  await fontsReady?.();
  for (let turn = 0; turn < turns; turn++) await new PromiseCtor((resolve) => wait(resolve, 0));

  let rejected: string | undefined;
  for (;;) {
    const signal = (window as { pageworksReady?: unknown }).pageworksReady;
    const then =
      signal !== null && (typeof signal === 'object' || typeof signal === 'function')
        ? (signal as { then?: unknown }).then
        : undefined;
    if (typeof then === 'function') {
      try {
        await (signal as PromiseLike<unknown>);
      } catch (reason) {
        rejected = apply(slice, toText(reason instanceof Error ? reason.message : reason), [0, limits.text]) as string;
      }
      break;
    }
    if (signal !== false) break;
    await new PromiseCtor<void>((resolve) => {
      wake = resolve;
      wait(resolve, 50);
    });
  }
  await fontsReady?.();

  // Same-origin frames (srcdoc, about:blank) animate too; a cross-origin one throws and is left alone.
  const documents = (): Document[] => {
    const found = [document];
    for (let i = 0; i < found.length; i++) {
      const frames = select(found[i], 'iframe, frame');
      for (let k = 0; k < frames.length; k++) {
        const frame = frames[k];
        try {
          const inner = (frame as HTMLIFrameElement).contentDocument;
          if (inner) found.push(inner);
        } catch {
          // cross-origin: not ours to change
        }
      }
    }
    return found;
  };
  // Resolves true at the next frame, false when none came within frameWaitMs (a frame another document's
  // script holds on the headless shell: browser/frames.ts), or at once without frames.
  const frameWaitMs = 1000;
  const frame = (): Promise<boolean> =>
    new PromiseCtor((resolve) => {
      if (frames) nextFrame(() => resolve(true));
      wait(() => resolve(false), frames ? frameWaitMs : 0);
    });
  // What a script does in its next frames (add a class that starts a transition, draw a chart) has to
  // have happened before animations are looked for, and what ends an animation may start another: each
  // round finishes what runs and lets a frame pass, until nothing runs and no frame is asked for (in a
  // document that navigated away from the counting above: one frame if it has scripts).
  // The document's frame callbacks still waiting when a frame did not come: it prints without them.
  let missed = 0;
  for (let round = 0; round < rounds; round++) {
    const framePending = framesAsked.size > 0 || (source === null && round === 0 && document.scripts.length > 0);
    const running = documents()
      .flatMap((doc) => doc.getAnimations())
      .filter((animation) => animation.playState === 'running');
    if (running.length === 0 && !framePending) break;
    for (const animation of running) {
      try {
        animation.finish();
      } catch {
        // An infinite (or zero-rate) animation cannot finish.
        animation.cancel();
      }
    }
    // animationend/transitionend handlers and requestAnimationFrame callbacks run with the next frame.
    if (!(await frame()) && frames) {
      missed = framesAsked.size;
      break;
    }
  }

  if (pageCss !== '') {
    const style = document.createElement('style');
    style.textContent = pageCss;
    document.head?.prepend(style);
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(pageCss);
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    } catch {
      // A document that froze adoptedStyleSheets keeps the style element alone.
    }
  }
  // No prototype: a getter or setter the document put on Object.prototype never sees the answer.
  const answer: { rejected?: string; missed?: number; page?: unknown; read?: unknown } = create(null);
  if (rejected !== undefined) answer.rejected = rejected;
  if (missed > 0) answer.missed = missed;
  if (keep?.take) answer.page = keep.take();
  try {
    if (keep?.read) answer.read = keep.read();
  } catch {
    // No read: the renderer reads the document in an isolated world instead.
  }
  return answer;
}
