/**
 * Patches of JSON documents: RFC 6902 JSON Patch (checked, then applied all or nothing) and
 * RFC 7386 JSON Merge Patch. Pure, copy-on-write, exact about numbers (silo-query's JsonNumber).
 */
export { checkJsonPatch, OPERATIONS } from './check.js';
export { applyJsonPatch, applyMergePatch, DEFAULT_PATCH_WORK, type ApplyOptions } from './apply.js';
export { PatchConflictError, PatchTooCostlyError, PatchTooDeepError, PatchTooLargeError } from './errors.js';
export { parsePointer } from './json-pointer.js';
