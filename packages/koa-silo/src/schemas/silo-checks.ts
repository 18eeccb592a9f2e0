/**
 * Create and update bodies checked by their request schemas, compiled once: the HTTP layer checks
 * a request's body with them (work/body-check.ts), an import its records (transfer/), and the
 * programmatic API what a script gives it (service/), so that all three refuse the same things
 * with the same issues.
 */
import { createSiloBody, updateSiloBody, type CreateSiloBody, type UpdateSiloBody } from './silo.js';
import { isPlainObject, validator } from './validate.js';

/** file_data's items are checked by hand (see ItemChecks): millions of bad items are one count. */
export const checkCreateBody = validator<CreateSiloBody>(createSiloBody, { file_data: isPlainObject });
export const checkUpdateBody = validator<UpdateSiloBody>(updateSiloBody, { file_data: isPlainObject });
