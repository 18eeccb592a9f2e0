/** A patch that is well formed but cannot apply to the document (the contract's 409). */
export class PatchConflictError extends Error {
  override name = 'PatchConflictError';
}

/** A patch whose `copy` operations would copy more than the allowed budget (the caller's 413). */
export class PatchTooLargeError extends Error {
  override name = 'PatchTooLargeError';
  constructor(readonly limit: number) {
    super(`The patch copies more than ${limit} bytes`);
  }
}
