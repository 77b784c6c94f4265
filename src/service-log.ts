/**
 * What the services' parts log through: pino's `Logger` fits it, and so does a test's recorder, so no
 * part needs pino (or a logger of its own shape) to say what happened.
 */
export interface ServiceLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
