// The one table every list is drawn with: the columns declared once (a header, how a row fills it,
// its cell's attributes, whether it heads the row; a column the role may not see is left out by
// passing false), rows keyed, an optional caption, what opens under a row, and the sentence an empty
// list shows instead of an empty table. On a phone its rows stack, each cell after its column's name
// (data-label), so no table is wider than the screen.
import { Fragment, type ComponentChildren, type HTMLAttributes, type TdHTMLAttributes } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { HeardContext } from "../load";
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
  /** What opens under a row, across every column (a run's details under the run), or null for nothing. */
  under?: (row: T) => ComponentChildren | null;
}

export function Table<T>({ rows, columns, rowKey, rowProps, empty, caption, captionClass, class: className, under }: TableProps<T>) {
  const { lit, said } = useLitRows(rows, rowKey);
  if (rows.length === 0 && empty !== undefined) return <Empty>{empty}</Empty>;
  const shown = columns.filter((column): column is Column<T> => Boolean(column));
  return (
    <div class="table-wrap">
      <p role="status" class="sr-only">
        {said}
      </p>
      <table class={className ? `${className} stack` : "stack"}>
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
          {rows.map((row) => {
            const opened = under?.(row) ?? null;
            return (
              <Fragment key={rowKey(row)}>
                <tr {...litProps(rowProps?.(row), lit.has(rowKey(row)))}>
                  {shown.map((column, index) =>
                    column.rowHeader ? (
                      <th key={index} scope="row" data-label={labelOf(column)} {...column.props?.(row)}>
                        {column.cell(row)}
                      </th>
                    ) : (
                      <td key={index} data-label={labelOf(column)} {...column.props?.(row)}>
                        {column.cell(row)}
                      </td>
                    ),
                  )}
                </tr>
                {opened !== null && (
                  <tr class="under">
                    <td colSpan={shown.length}>{opened}</td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** How long a row a live change added or changed stays lit. */
const LIT_MS = 3000;

/**
 * The rows a change heard live added or changed (what the page shows was read again: HeardContext),
 * lit for a moment, and a sentence saying how many for the polite status region. A first load, a
 * reload after a person's own action and "Show more" light nothing.
 */
function useLitRows<T>(rows: readonly T[], rowKey: (row: T) => string | number): { lit: ReadonlySet<string | number>; said: string } {
  const heard = useContext(HeardContext);
  const before = useRef<{ heard: number; rows: Map<string | number, string> } | null>(null);
  const [lit, setLit] = useState<{ keys: ReadonlySet<string | number>; said: string }>({ keys: new Set(), said: "" });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    const now = new Map(rows.map((row) => [rowKey(row), JSON.stringify(row)] as const));
    const previous = before.current;
    before.current = { heard, rows: now };
    if (previous === null || previous.heard === heard) return;
    const added = [...now.keys()].filter((key) => !previous.rows.has(key));
    const changed = [...now].filter(([key, text]) => previous.rows.has(key) && previous.rows.get(key) !== text).map(([key]) => key);
    if (added.length + changed.length === 0) return;
    setLit({ keys: new Set([...added, ...changed]), said: changedSentence(added.length, changed.length) });
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setLit((current) => ({ keys: new Set(), said: current.said })), LIT_MS);
  }, [rows, heard]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return { lit: lit.keys, said: lit.said };
}

const rowsWord = (count: number) => (count === 1 ? "1 row" : `${count} rows`);

/** "Updated: 1 row added, 2 rows changed." */
function changedSentence(added: number, changed: number): string {
  const parts = [added > 0 && `${rowsWord(added)} added`, changed > 0 && `${rowsWord(changed)} changed`].filter(Boolean);
  return `Updated: ${parts.join(", ")}.`;
}

/** A row's attributes with the class that lights it while `lit`. */
function litProps(props: (HTMLAttributes<HTMLTableRowElement> & DataAttributes) | undefined, lit: boolean) {
  if (!lit) return props;
  const own = props?.class;
  return { ...props, class: own ? `${String(own)} lit` : "lit" };
}

/** A column's name as a stacked cell says it on a phone; none for a column without a written header. */
const labelOf = <T,>(column: Column<T>) => (typeof column.header === "string" && column.header !== "" ? column.header : undefined);
