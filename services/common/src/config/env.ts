/**
 * Typed readers for environment variables. Each process's `config.ts` uses them once at start-up;
 * a bad value fails fast with a message naming the variable.
 */
import { LOG_LEVELS, type LogLevel } from '../logging/logger.js';

/** Thrown when an environment variable has a value the process cannot run with. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** A string variable; `fallback` when unset or empty. */
export function envString(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v.trim() === '' ? fallback : v.trim();
}

/** An optional string variable; undefined when unset or empty. */
export function envOptional(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** An integer variable within [min, max]. */
export function envInt(env: Env, name: string, fallback: number, bounds: { min?: number; max?: number } = {}): number {
  const raw = envOptional(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const n = Number(raw);
  if (bounds.min !== undefined && n < bounds.min) throw new ConfigError(name, `must be >= ${bounds.min}, got ${n}`);
  if (bounds.max !== undefined && n > bounds.max) throw new ConfigError(name, `must be <= ${bounds.max}, got ${n}`);
  return n;
}

/** A number variable within [min, max]. */
export function envNumber(env: Env, name: string, fallback: number, bounds: { min?: number; max?: number } = {}): number {
  const raw = envOptional(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new ConfigError(name, `expected a number, got "${raw}"`);
  if (bounds.min !== undefined && n < bounds.min) throw new ConfigError(name, `must be >= ${bounds.min}, got ${n}`);
  if (bounds.max !== undefined && n > bounds.max) throw new ConfigError(name, `must be <= ${bounds.max}, got ${n}`);
  return n;
}

/** A boolean variable: true/false/1/0/yes/no. */
export function envBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = envOptional(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

/** A comma-separated list; empty entries dropped. */
export function envList(env: Env, name: string, fallback: readonly string[]): string[] {
  const raw = envOptional(env, name);
  if (raw === undefined) return [...fallback];
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** One of a fixed set of values. */
export function envEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = envOptional(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** LOG_LEVEL: the lowest level a process writes (debug, info, warn, error). @default "info" */
export function envLogLevel(env: Env): LogLevel {
  return envEnum(env, 'LOG_LEVEL', LOG_LEVELS, 'info');
}
