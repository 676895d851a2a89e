// The one table every list is drawn with: the columns declared once (a header, how a row fills it,
// its cell's attributes, whether it heads the row; a column the role may not see is left out by
// passing false), rows keyed, an optional caption, and the sentence an empty list shows instead of an
// empty table. Wide tables scroll sideways at 360 px.
import type { ComponentChildren, HTMLAttributes, TdHTMLAttributes } from "preact";
import { Empty } from "./feedback";

type DataAttributes = Record<`data-${string}`, string>;

export interface Column<T> {
  header: ComponentChildren;
  cell: (row: T) => ComponentChildren;
  /** Attributes of the row's cell in this column (a class, a test id, a title). */
  props?: (row: T) => TdHTMLAttributes<HTMLTableCellElement> & DataAttributes;
  /** The row's header: drawn as `<th scope="row">`. */
  rowHeader?: true;
}

interface TableProps<T> {
  rows: readonly T[];
  /** `false` (or null) leaves a column out: `can("x") && { header, cell }`. */
  columns: ReadonlyArray<Column<T> | false | null | undefined>;
  rowKey: (row: T) => string | number;
  /** Attributes of a row's `<tr>` (a test id, an accessible name, a class). */
  rowProps?: (row: T) => HTMLAttributes<HTMLTableRowElement> & DataAttributes;
  /** What an empty list says instead (what to do next); without it, an empty table is drawn. */
  empty?: ComponentChildren;
  caption?: ComponentChildren;
  captionClass?: string;
  /** The table's own class (its stylesheet's hook). */
  class?: string;
}

export function Table<T>({ rows, columns, rowKey, rowProps, empty, caption, captionClass, class: className }: TableProps<T>) {
  if (rows.length === 0 && empty !== undefined) return <Empty>{empty}</Empty>;
  const shown = columns.filter((column): column is Column<T> => Boolean(column));
  return (
    <div class="table-wrap">
      <table class={className}>
        {caption && <caption class={captionClass}>{caption}</caption>}
        <thead>
          <tr>
            {shown.map((column, index) => (
              <th key={index} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} {...rowProps?.(row)}>
              {shown.map((column, index) =>
                column.rowHeader ? (
                  <th key={index} scope="row" {...column.props?.(row)}>
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={index} {...column.props?.(row)}>
                    {column.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
