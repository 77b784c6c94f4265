/**
 * Cancels an outbound fetch and whatever step of it is under way (the DNS lookup, a hop, a body): what an
 * AbortSignal does for these callers, without EventTarget. Adding and removing an EventTarget listener for
 * every step of every request cost microseconds each; a fetch has only a step or two in flight at a time.
 */
export class Cancellation {
  aborted = false;
  reason: Error | undefined = undefined;
  private listeners: Array<(reason: Error) => void> = [];

  /** Cancels (once): every listener still registered is called with `reason`, in the order added. */
  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener(reason);
  }

  /** Calls `listener` when this is aborted (never if it already was). */
  onAbort(listener: (reason: Error) => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  /** Removes a listener added with `onAbort`. */
  offAbort(listener: (reason: Error) => void): void {
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }
}
