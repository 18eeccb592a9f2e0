/** A patch that is well formed but cannot apply to the document (the contract's 409). */
export class PatchConflictError extends Error {
  override name = 'PatchConflictError';
}

/** A patch whose result would be larger than allowed (the caller's 413). */
export class PatchTooLargeError extends Error {
  override name = 'PatchTooLargeError';
  constructor(readonly limit: number) {
    super(`The patched document would be larger than ${limit} characters`);
  }
}

/** A patch whose work (elements shifted or copied) would pass the budget (the caller's 422), refused before doing it. */
export class PatchTooCostlyError extends Error {
  override name = 'PatchTooCostlyError';
  constructor(
    readonly limit: number,
    /** The operation at which the budget ran out. */
    readonly operation?: number,
  ) {
    super(`The patch needs more work than its budget of ${limit} steps${operation === undefined ? '' : ` (at operation ${operation})`}`);
  }
}

/** A patch that would nest the document deeper than allowed (the caller's 422 `json_too_deep`), refused before the operation applies. */
export class PatchTooDeepError extends Error {
  override name = 'PatchTooDeepError';
  constructor(
    readonly limit: number,
    /** The operation that would have nested too deep. */
    readonly operation?: number,
  ) {
    super(`The patched document would nest deeper than ${limit} levels${operation === undefined ? '' : ` (at operation ${operation})`}`);
  }
}
