import type { ComponentChildren } from 'preact';

/** A column of a CardTable: its header, or one only a screen reader reads (a column of buttons). */
export type Column = string | { offscreen: string };

/**
 * The console's list table: a caption, the column headers, the rows given as children. On a phone
 * the CSS shows it as one card per row (each cell's `data-label` before it), which takes away a
 * table's built-in roles: they are spelled out here, and each page's rows spell out theirs
 * (`role="row"`, `role="rowheader"`, `role="cell"`), so it stays a table to a screen reader.
 */
export function CardTable({ caption, columns, children }: { caption: ComponentChildren; columns: readonly Column[]; children: ComponentChildren }) {
  return (
    <table class="cards" role="table">
      <caption>{caption}</caption>
      <thead role="rowgroup">
        <tr role="row">
          {columns.map((c) => (
            <th key={typeof c === 'string' ? c : c.offscreen} scope="col" role="columnheader">
              {typeof c === 'string' ? c : <span class="offscreen">{c.offscreen}</span>}
            </th>
          ))}
        </tr>
      </thead>
      <tbody role="rowgroup">{children}</tbody>
    </table>
  );
}
