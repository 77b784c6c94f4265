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

/** Rejects with the cancellation's reason as soon as it aborts (a DNS lookup itself cannot be cancelled). */
export function abortable<T>(promise: Promise<T>, cancel: Cancellation | undefined): Promise<T> {
  if (!cancel) return promise;
  if (cancel.aborted) return Promise.reject(cancel.reason);
  return new Promise<T>((resolve, reject) => {
    cancel.onAbort(reject);
    promise.then(
      (v) => {
        cancel.offAbort(reject);
        resolve(v);
      },
      (e: unknown) => {
        cancel.offAbort(reject);
        reject(e);
      },
    );
  });
}
