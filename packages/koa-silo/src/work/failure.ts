/**
 * Errors across the worker boundary. A worker's exception arrives as a structured clone, which
 * keeps neither classes nor extra fields; so a task's error is sent as a plain `Failure` and made
 * again on the main thread as the typed error the HTTP layer renders (a 422 keeps its `detail`).
 */
import { SiloQueryError } from 'silo-query';
import { SiloError, ValidationError, type ValidationIssue } from '../model/index.js';

export interface Failure {
  status?: number;
  message: string;
  headers?: Record<string, string>;
  detail?: ValidationIssue[];
}

export function toFailure(error: unknown): Failure {
  if (error instanceof SiloQueryError) return { status: 422, message: error.message, detail: error.detail };
  if (error instanceof ValidationError) return { status: 422, message: error.message, detail: error.detail };
  if (error instanceof SiloError) return { status: error.status, message: error.message, headers: error.headers };
  return { message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

/** The error a Failure stands for: a SiloError when it had a status, else a plain Error (a bug: 500, logged). */
export function fromFailure(failure: Failure): Error {
  if (failure.detail) return new ValidationError(failure.detail);
  if (failure.status !== undefined) return new SiloError(failure.status, failure.message, failure.headers);
  return new Error(`in a worker: ${failure.message}`);
}
