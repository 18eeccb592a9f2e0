/**
 * A store whose commits drop the audit log's writes, for the "without" side of the cost
 * benchmarks: the records (`silo:audit-entry:...`) and indexes (`silo:audit:...`, `-actor`,
 * `-silo`) of stores without an audit log of their own, and the rows (`auditAdd`) of those with one.
 */
import type { AtomicBatch } from '../../packages/koa-silo/dist/index.js';

const AUDIT_KEY = /^silo:audit(-entry|-actor|-silo)?:/;

export function stripAuditWrites(adapter: { atomic(batch: AtomicBatch): Promise<boolean> }): void {
  const atomic = adapter.atomic.bind(adapter);
  adapter.atomic = ({ auditAdd: _rows, ...batch }) =>
    atomic({ ...batch, set: batch.set.filter(([k]) => !AUDIT_KEY.test(k)), indexAdd: batch.indexAdd.filter(([k]) => !AUDIT_KEY.test(k)) });
}
