// Buttons and forms that act: each shows progress, then the result or the refusal beside it.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { useAction } from "../load";
import { OutcomeNote } from "./feedback";

interface ActionProps {
  label: string;
  /** Does the work; answers the sentence shown on success. */
  run: () => Promise<string>;
  /** Asks again before acting (destructive actions): the question shown. */
  confirm?: string;
  kind?: "primary" | "secondary" | "danger";
}

export function ActionButton({ label, run, confirm, kind = "secondary" }: ActionProps) {
  const action = useAction(run);
  const [asking, setAsking] = useState(false);
  // The question replaces the button: keyboard focus moves to its answer.
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  const className = kind === "primary" ? undefined : kind;
  return (
    <span class="action">
      {asking ? (
        <span role="group" aria-label={confirm}>
          <span>{confirm} </span>
          <button
            type="button"
            class="danger"
            ref={yes}
            onClick={() => {
              setAsking(false);
              void action.start();
            }}
          >
            Yes, {label.toLowerCase()}
          </button>{" "}
          <button type="button" class="secondary" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" class={className} disabled={action.pending} onClick={() => (confirm ? setAsking(true) : void action.start())}>
          {label}
        </button>
      )}
      <OutcomeNote outcome={action.outcome} pending={action.pending} />
    </span>
  );
}

interface FormProps {
  /** The form's accessible name and its submit button. */
  label: string;
  submit: (fields: FormData) => Promise<string>;
  children: ComponentChildren;
  /** `danger`: the submit button is drawn as a destructive action (deleting, closing), never as the page's primary one. */
  kind?: "primary" | "danger";
}

export function ActionForm({ label, submit, children, kind = "primary" }: FormProps) {
  const action = useAction(submit);
  const form = useRef<HTMLFormElement>(null);
  const noteId = useId();
  // The field a refusal names is marked invalid, tied to the sentence and focused; the next answer clears it.
  const invalid = action.outcome && !action.outcome.ok ? action.outcome.failure.field : undefined;
  useEffect(() => {
    for (const element of form.current?.querySelectorAll("[aria-invalid]") ?? []) {
      element.removeAttribute("aria-invalid");
      element.removeAttribute("aria-describedby");
    }
    const named = invalid ? form.current?.elements.namedItem(invalid) : null;
    if (!(named instanceof HTMLElement)) return;
    named.setAttribute("aria-invalid", "true");
    named.setAttribute("aria-describedby", noteId);
    named.focus();
  }, [invalid, noteId]);
  return (
    <form
      ref={form}
      class="panel"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        void action.start(new FormData(event.currentTarget));
      }}
    >
      <div class="fields">{children}</div>
      <button type="submit" class={kind === "danger" ? "danger" : undefined} disabled={action.pending}>
        {label}
      </button>
      <OutcomeNote outcome={action.outcome} pending={action.pending} id={noteId} />
    </form>
  );
}

/** A form field's text; blank is absent. */
export const field = (fields: FormData, name: string): string | undefined => {
  const value = String(fields.get(name) ?? "").trim();
  return value === "" ? undefined : value;
};

/** A value shown once (a token, an invitation link), with a copy button. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="once" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong>: shown once; copy it now.
      </p>
      <p>
        <code data-testid="shown-once">{value}</code>
      </p>
      <button type="button" class="secondary" onClick={() => void navigator.clipboard?.writeText(value).then(() => setCopied(true))}>
        {copied ? "Copied" : "Copy"}
      </button>
    </div>
  );
}
