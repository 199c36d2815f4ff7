import { SaxesParser } from 'saxes';

import { BankFileError } from './errors';

/** An element of a captured subtree; names without namespace prefix. */
export interface XNode {
	name: string;
	attrs: Record<string, string>;
	children: XNode[];
	text: string;
}

export interface SubtreeHandler {
	/** Whether the element at `path` (local names from the root) is captured whole. */
	capture(path: readonly string[]): boolean;
	/** A captured element, complete. */
	onCaptured(path: readonly string[], node: XNode): void;
	/** An element that is not inside a captured one opens / closes. */
	onOpen?(path: readonly string[], attrs: Record<string, string>): void;
	onClose?(path: readonly string[]): void;
}

const local = (name: string): string => {
	const colon = name.indexOf(':');
	return colon === -1 ? name : name.slice(colon + 1);
};

/**
 * Shared by every element without attributes / children (never changed: a first child replaces it).
 */
const NO_ATTRS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_CHILDREN: XNode[] = Object.freeze([]) as unknown as XNode[];

/** saxes' attributes (a prototype-less map per tag) as a plain object, or the shared empty one. */
function attributesOf(attrs: Record<string, string>): Record<string, string> {
	let copy: Record<string, string> | undefined;
	for (const key in attrs) {
		copy ??= {};
		copy[key] = attrs[key];
	}
	return copy ?? NO_ATTRS;
}

/**
 * A string of its own. Text the parser hands over is often a slice of the chunk being parsed; a
 * value kept in an item would keep that whole chunk alive with it. Strings shorter than V8's
 * slice minimum (13) are copies already.
 */
export function ownString(value: string): string {
	return value.length < 13 ? value : (' ' + value).slice(1);
}

/**
 * How many bytes are decoded and handed to saxes at once: small enough to stay in V8's young
 * generation.
 */
const PIECE = 16 * 1024;

/**
 * Streams XML through saxes and builds only the subtrees the handler asks for: memory stays
 * with one subtree (one entry) at a time, never the whole document. Texts in captured subtrees
 * are strings of their own (see ownString), so what the handler keeps holds nothing of the input.
 */
export class SubtreeReader {
	private readonly parser = new SaxesParser({ position: true });
	private readonly path: string[] = [];
	private readonly stack: XNode[] = [];
	private captureDepth = -1;
	private decoder: TextDecoder;
	private error?: Error;
	private refused?: BankFileError;
	private started = false;
	private sniffed = false;
	rootNamespace?: string;

	constructor(
		private readonly handler: SubtreeHandler,
		encoding = 'utf-8',
	) {
		this.decoder = new TextDecoder(encoding, { fatal: true });
		const parser = this.parser;
		parser.on('opentag', (tag) => {
			const name = local(tag.name);
			this.path.push(name);
			const attrs = tag.attributes as Record<string, string>;
			if (!this.started) {
				this.started = true;
				this.rootNamespace =
					attrs.xmlns ?? Object.entries(attrs).find(([k]) => k.startsWith('xmlns:'))?.[1];
			}
			if (this.captureDepth === -1) {
				if (this.handler.capture(this.path)) {
					this.captureDepth = this.path.length;
					this.stack.push({ name, attrs: attributesOf(attrs), children: NO_CHILDREN, text: '' });
				} else this.handler.onOpen?.(this.path, attrs);
				return;
			}
			const node: XNode = { name, attrs: attributesOf(attrs), children: NO_CHILDREN, text: '' };
			const parent = this.stack[this.stack.length - 1];
			if (parent.children === NO_CHILDREN) parent.children = [node];
			else parent.children.push(node);
			this.stack.push(node);
		});
		const onText = (text: string): void => {
			if (this.captureDepth === -1) return;
			const node = this.stack[this.stack.length - 1];
			// Element content (the indentation between child elements) is not text of the element.
			if (node.children === NO_CHILDREN) node.text = node.text === '' ? text : node.text + text;
		};
		parser.on('text', onText);
		parser.on('cdata', onText);
		parser.on('closetag', () => {
			if (this.captureDepth !== -1) {
				const node = this.stack.pop()!;
				node.text = node.children === NO_CHILDREN ? ownString(node.text.trim()) : '';
				if (this.path.length === this.captureDepth) {
					this.captureDepth = -1;
					this.handler.onCaptured(this.path, node);
				}
			} else this.handler.onClose?.(this.path);
			this.path.pop();
		});
		parser.on('doctype', () => {
			// Banks never need a document type; it is how entity expansion and external entities
			// get in, so it is refused whether or not the file uses what it declares.
			this.refused ??= new BankFileError(
				'UNSAFE_XML',
				'The XML declares a document type (DOCTYPE), which bank files never need; it is refused',
				`line ${parser.line}`,
			);
		});
		parser.on('error', (error) => {
			this.error ??= error;
		});
	}

	write(chunk: Buffer): void {
		if (!this.sniffed) {
			this.sniffed = true;
			// The declaration names the encoding; it has to be known before the first bytes are decoded.
			const declared = /^(?:\xEF\xBB\xBF)?\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/
				.exec(chunk.subarray(0, 200).toString('latin1'))?.[1]
				?.toLowerCase();
			if (
				declared &&
				['iso-8859-1', 'latin1', 'iso-8859-15', 'windows-1252', 'cp1252'].includes(declared)
			)
				this.decoder = new TextDecoder('latin1');
		}
		// Decoded and parsed a piece at a time, so no string made here is large.
		for (let offset = 0; offset < chunk.length; offset += PIECE) {
			let text: string | undefined;
			try {
				text = this.decoder.decode(
					chunk.length <= PIECE ? chunk : chunk.subarray(offset, offset + PIECE),
					{ stream: true },
				);
			} catch {
				text = undefined;
			}
			if (text === undefined)
				throw new BankFileError(
					'NOT_DECODABLE',
					'The XML is not valid UTF-8 (and does not declare another encoding)',
				);
			this.parser.write(text);
			this.rethrow();
		}
	}

	close(): void {
		const open = [...this.path];
		const pending = this.decoder.decode();
		if (pending) this.parser.write(pending);
		this.rethrow();
		if (open.length) {
			throw new BankFileError(
				'TRUNCATED',
				`The file is truncated: it ends inside <${open.join('/')}>`,
			);
		}
		if (!this.started) throw new BankFileError('NOT_XML', 'The file holds no XML element');
		this.parser.close();
		this.rethrow();
	}

	private rethrow(): void {
		if (this.refused) throw this.refused;
		if (this.error) {
			const message = this.error.message.replace(/^undefined:/, 'line ');
			throw new BankFileError('INVALID_XML', `The XML is not well-formed: ${message}`);
		}
	}
}

// ---- reading captured subtrees ----

/** The first descendant along the path (local names), or undefined. */
export function child(node: XNode | undefined, ...path: string[]): XNode | undefined {
	let current = node;
	for (const name of path) {
		if (!current) return undefined;
		current = current.children.find((c) => c.name === name);
	}
	return current;
}

export function children(node: XNode | undefined, name: string): XNode[] {
	return node ? node.children.filter((c) => c.name === name) : [];
}

/** Text at the path, or null. */
export function text(node: XNode | undefined, ...path: string[]): string | null {
	const found = child(node, ...path);
	return found && found.text !== '' ? found.text : null;
}

/** The first text found among several paths. */
export function firstText(node: XNode | undefined, ...paths: string[][]): string | null {
	for (const path of paths) {
		const value = text(node, ...path);
		if (value !== null) return value;
	}
	return null;
}

/** Escapes text for an element or a double-quoted attribute. */
export const escapeXml = (value: string): string =>
	value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The element as XML text again (in the document's namespace). */
export function serialize(node: XNode, namespace?: string): string {
	const attrs = Object.entries(node.attrs)
		.filter(([k]) => k !== 'xmlns' && !k.startsWith('xmlns:'))
		.map(([k, v]) => ` ${local(k)}="${escapeXml(v)}"`)
		.join('');
	const ns = namespace ? ` xmlns="${namespace}"` : '';
	const inner = node.children.length
		? node.children.map((c) => serialize(c)).join('')
		: escapeXml(node.text);
	return `<${node.name}${ns}${attrs}>${inner}</${node.name}>`;
}
