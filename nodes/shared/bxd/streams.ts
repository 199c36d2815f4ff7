/**
 * Stream pieces for XML files of any size: a cutter that splits an XML byte stream into the text
 * before one big element, the element's content (passed on as it arrives) and the small rest,
 * the elements still open in a text, and helpers that coalesce chunks, read a stream up to a
 * limit and peek at its first bytes. Nothing here holds more than a chunk of the payload.
 */
import { Readable, Transform, type TransformCallback } from 'node:stream';

import { BxdFormatError } from './errors';

/**
 * The qualified names of the elements still open at the end of an XML text, outermost first.
 * Comments, CDATA sections, processing instructions and quoted attribute values are skipped.
 */
export function openElements(xml: string): string[] {
	const stack: string[] = [];
	let at = xml.indexOf('<');
	while (at !== -1 && at < xml.length) {
		if (xml.startsWith('<!--', at)) {
			const end = xml.indexOf('-->', at + 4);
			if (end === -1) break;
			at = xml.indexOf('<', end + 3);
			continue;
		}
		if (xml.startsWith('<![CDATA[', at)) {
			const end = xml.indexOf(']]>', at + 9);
			if (end === -1) break;
			at = xml.indexOf('<', end + 3);
			continue;
		}
		if (xml.startsWith('<?', at) || xml.startsWith('<!', at)) {
			const end = xml.indexOf('>', at + 2);
			if (end === -1) break;
			at = xml.indexOf('<', end + 1);
			continue;
		}
		const closing = xml[at + 1] === '/';
		const nameMatch = /^[^\s/>]+/.exec(xml.slice(at + (closing ? 2 : 1), at + 300));
		const name = nameMatch?.[0] ?? '';
		// Find the end of the tag, skipping quoted attribute values.
		let i = at + 1;
		let quote = '';
		for (; i < xml.length; i++) {
			const c = xml[i];
			if (quote) {
				if (c === quote) quote = '';
			} else if (c === '"' || c === "'") {
				quote = c;
			} else if (c === '>') {
				break;
			}
		}
		if (i >= xml.length) break;
		if (closing) {
			if (stack[stack.length - 1] === name) stack.pop();
		} else if (xml[i - 1] !== '/' && name) {
			stack.push(name);
		}
		at = xml.indexOf('<', i + 1);
	}
	return stack;
}

/** The closing tags of the elements `openElements` found, innermost first. */
export function closingTags(open: string[]): string {
	return [...open]
		.reverse()
		.map((name) => `</${name}>`)
		.join('');
}

export interface CutHead {
	/** The bytes up to and including the opening tag of the element. */
	head: Buffer;
	/** Its qualified name as written (prefix:local). */
	qname: string;
	/** `<x/>`: the element has no content. */
	selfClosing: boolean;
}

export interface ElementCutOptions {
	/** Local name of the element whose content is passed on. */
	localName: string;
	/** What the stream is, for error messages ("The bank's answer"). */
	what: string;
	/** Most bytes kept before the element (or in all when it never comes). */
	maxHead: number;
	/** Most bytes kept after the content. */
	maxTail: number;
	/**
	 * Whether this occurrence is the one (for example a child of the root), given the text before it
	 * (latin1).
	 */
	accept?: (before: string, qname: string) => boolean;
	/** Called with the head before any content is passed on; throwing stops the stream. */
	onHead?: (head: CutHead) => void;
}

const LOOKBEHIND = 512;
const MAX_TAG = 64 * 1024;

/**
 * Splits an XML byte stream at one element: the bytes before its content are kept (see
 * `found`), its text content is passed on as it arrives, without ever being held whole, and the
 * bytes from the first `<` after it are kept (`tail`). The content must be text without markup,
 * as base64 is. When the element never appears, everything read is kept in `whole`.
 */
export class ElementCut extends Transform {
	found?: CutHead;
	whole?: Buffer;
	tail?: Buffer;
	/** Bytes of content passed on. */
	contentBytes = 0;

	private state: 'head' | 'content' | 'tail' = 'head';
	private readonly chunks: Buffer[] = [];
	private size = 0;
	private window = '';
	private windowStart = 0;
	private searchFrom = 0;
	private readonly opening: RegExp;

	constructor(private readonly options: ElementCutOptions) {
		super();
		this.opening = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${options.localName}(?=[\\s/>])`, 'g');
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		try {
			if (this.state === 'head') this.scanHead(chunk);
			else if (this.state === 'content') this.passContent(chunk);
			else this.keepTail(chunk);
			done();
		} catch (error) {
			done(error as Error);
		}
	}

	_flush(done: TransformCallback): void {
		if (this.state === 'head') {
			this.whole = Buffer.concat(this.chunks, this.size);
			this.chunks.length = 0;
			done();
			return;
		}
		if (this.state === 'content') {
			done(
				new BxdFormatError(
					`${this.options.what} is cut off: the ${this.options.localName} element is not closed`,
				),
			);
			return;
		}
		this.tail = Buffer.concat(this.chunks, this.size);
		this.chunks.length = 0;
		done();
	}

	private scanHead(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.size += chunk.length;
		this.window += chunk.toString('latin1');
		for (;;) {
			this.opening.lastIndex = Math.max(0, this.searchFrom - this.windowStart);
			const match = this.opening.exec(this.window);
			if (!match) {
				this.trimWindow(this.window.length - LOOKBEHIND);
				break;
			}
			const gt = this.window.indexOf('>', match.index);
			if (gt === -1) {
				if (this.window.length - match.index > MAX_TAG)
					throw new BxdFormatError(
						`${this.options.what} has a broken ${this.options.localName} tag`,
					);
				this.trimWindow(match.index);
				this.searchFrom = this.windowStart;
				break;
			}
			const start = this.windowStart + match.index;
			const end = this.windowStart + gt + 1;
			const qname = match[0].slice(1);
			const all = Buffer.concat(this.chunks, this.size);
			if (this.options.accept && !this.options.accept(all.toString('latin1', 0, start), qname)) {
				this.searchFrom = end;
				continue;
			}
			this.found = { head: all.subarray(0, end), qname, selfClosing: this.window[gt - 1] === '/' };
			this.chunks.length = 0;
			this.size = 0;
			this.window = '';
			this.options.onHead?.(this.found);
			const rest = all.subarray(end);
			if (this.found.selfClosing) {
				this.state = 'tail';
				if (rest.length) this.keepTail(rest);
			} else {
				this.state = 'content';
				if (rest.length) this.passContent(rest);
			}
			return;
		}
		if (this.size > this.options.maxHead) {
			throw new BxdFormatError(
				`${this.options.what} is too large: no ${this.options.localName} in its first ${this.options.maxHead} bytes`,
			);
		}
	}

	private trimWindow(keepFrom: number): void {
		if (keepFrom <= 0) return;
		this.window = this.window.slice(keepFrom);
		this.windowStart += keepFrom;
		if (this.searchFrom < this.windowStart) this.searchFrom = this.windowStart;
	}

	private passContent(chunk: Buffer): void {
		const lt = chunk.indexOf(0x3c);
		if (lt === -1) {
			this.contentBytes += chunk.length;
			this.push(chunk);
			return;
		}
		if (lt > 0) {
			this.contentBytes += lt;
			this.push(chunk.subarray(0, lt));
		}
		this.state = 'tail';
		this.keepTail(chunk.subarray(lt));
	}

	private keepTail(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.size += chunk.length;
		if (this.size > this.options.maxTail) {
			throw new BxdFormatError(
				`${this.options.what} is too large after its ${this.options.localName} element`,
			);
		}
	}
}

/** Passes chunks on in pieces of at least `size` bytes (fewer, larger writes downstream). */
export class Coalesce extends Transform {
	private readonly pending: Buffer[] = [];
	private pendingSize = 0;

	constructor(private readonly size: number) {
		super();
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		this.pending.push(chunk);
		this.pendingSize += chunk.length;
		if (this.pendingSize >= this.size) this.release();
		done();
	}

	protected release(): void {
		if (!this.pendingSize) return;
		this.push(
			this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingSize),
		);
		this.pending.length = 0;
		this.pendingSize = 0;
	}

	_flush(done: TransformCallback): void {
		this.release();
		done();
	}
}

/** Reads a stream into one buffer, refusing more than `limit` bytes. */
export async function readAtMost(source: Readable, limit: number, what: string): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of source) {
		const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
		size += bytes.length;
		if (size > limit) {
			source.destroy();
			throw new BxdFormatError(`${what} is larger than ${limit} bytes`);
		}
		chunks.push(bytes);
	}
	return Buffer.concat(chunks, size);
}

export { peekStream } from '../common/streamHead';
