/**
 * A transfer that failed, with the one line the command prints (exit 1). Its own module, with
 * nothing imported, so that the `silo` command knows it without loading the transfer code.
 */
export class TransferFailure extends Error {}
