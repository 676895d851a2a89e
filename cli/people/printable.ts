// Text from a control plane is printed to a terminal: a hostile or broken server must not send it
// escape sequences (colours, cursor moves, a rewritten screen, a changed window title).

/** `text` without control characters (C0 but the newline, DEL, C1). */
export const printable = (text: string): string => text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, "");
