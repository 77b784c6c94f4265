/** Reading one typed value from the environment, and the error that names a variable whose value is refused. */

/** A configuration value that is not allowed; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/** The environment a configuration is read from (`process.env`, or a test's own). */
export type Env = Record<string, string | undefined>;

/** A string variable; unset or empty: the fallback. */
export function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

/** A whole number from min to max; unset or empty: the fallback. */
export function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    throw new ConfigError(name, `"${raw}" is not a whole number (allowed: ${min}..${max})`);
  }
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(name, `${n} is out of range (allowed: ${min}..${max})`);
  return n;
}

/** A TCP port, 0 to 65535. */
export function port(env: Env, name: string, fallback: number): number {
  return int(env, name, fallback, 0, 65535);
}

/** One of the allowed words. */
export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `"${raw}" is not allowed (allowed: ${allowed.join(', ')})`);
  }
  return raw as T;
}

/** A boolean: true/false, 1/0, yes/no, on/off. */
export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `"${raw}" is not a boolean (allowed: true, false, 1, 0)`);
}

/** A URL of one of the schemes (`https:`); unset or empty: undefined. */
export function url(env: Env, name: string, schemes: readonly string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `not a URL (allowed: ${schemes.map((s) => `${s}//…`).join(', ')})`);
  }
  if (!schemes.includes(parsed.protocol)) {
    throw new ConfigError(
      name,
      `scheme "${parsed.protocol}" is not allowed (allowed: ${schemes.map((s) => `${s}//…`).join(', ')})`,
    );
  }
  return raw;
}

/** A public http(s) base address, without a trailing slash. */
export function publicBase(env: Env, name: string, fallback: string): string {
  const raw = url(env, name, ['http:', 'https:']) ?? fallback;
  // Links are built by appending paths: one base without a trailing slash.
  return raw.replace(/\/+$/, '');
}

/** A number from 0 to 1. */
export function fraction(env: Env, name: string, fallback: number): number {
  const raw = str(env, name, String(fallback));
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value > 1)
    throw new ConfigError(name, `"${raw}" is not a number from 0 to 1 (allowed: 0..1)`);
  return value;
}
