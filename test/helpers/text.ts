/**
 * Text helpers for tests that handle documents of several megabytes. They use plain searches,
 * never a regular expression over the whole document: a backtracking pattern on a multi-megabyte
 * string can exhaust V8's regular-expression stack ("Maximum call stack size exceeded").
 */

/** The text between the first `open` and the first `close` after it. Throws when either is missing. */
export function between(text: string, open: string, close: string): string {
	const start = text.indexOf(open);
	if (start === -1) throw new Error(`no ${open} in the text`);
	const from = start + open.length;
	const end = text.indexOf(close, from);
	if (end === -1) throw new Error(`no ${close} after ${open} in the text`);
	return text.slice(from, end);
}

/** The text without the part from the first `open` to the last `close` (both included). Throws when either is missing. */
export function without(text: string, open: string, close: string): string {
	const start = text.indexOf(open);
	const end = text.lastIndexOf(close);
	if (start === -1 || end < start) throw new Error(`no ${open} ... ${close} in the text`);
	return text.slice(0, start) + text.slice(end + close.length);
}

/** The text cut into lines of `width` characters (the last one may be shorter). */
export function lines(text: string, width: number): string[] {
	const out: string[] = [];
	for (let at = 0; at < text.length; at += width) out.push(text.slice(at, at + width));
	return out;
}
