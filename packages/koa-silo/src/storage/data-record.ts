/**
 * The data record of a silo in its region's store: one string,
 *
 *     <SiloRecord as JSON>\n<file_data as JSON text, exactly as stored>
 *
 * so that a data read is one storage round trip that yields both what access control needs
 * (account, is_public, region, version) and the text to send, without parsing the text.
 * JSON.stringify never emits a raw newline, so the first "\n" ends the header; slicing the rest
 * off a string does not copy it.
 */
import type { SiloDataRecord, SiloRecord } from '../service/types.js';

export function encodeDataRecord(record: SiloRecord, text: string): string {
  return `${JSON.stringify(record)}\n${text}`;
}

/** Undefined when the string is not a data record (never written by Silo). */
export function decodeDataRecord(raw: string): SiloDataRecord | undefined {
  const newline = raw.indexOf('\n');
  if (newline < 0) return undefined;
  const record = JSON.parse(raw.slice(0, newline)) as SiloRecord;
  return { record, text: raw.slice(newline + 1) };
}
