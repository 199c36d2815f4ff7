import { Transform, type TransformCallback } from 'node:stream';

/** Encodes a byte stream to base64 text, optionally wrapped in lines, without buffering it whole. */
export class Base64Encode extends Transform {
	private rest: Buffer = Buffer.alloc(0);
	private column = 0;

	constructor(private readonly lineLength = 0) {
		super();
	}

	private wrapLines(text: string): string {
		if (!this.lineLength) return text;
		let out = '';
		let i = 0;
		while (i < text.length) {
			const take = Math.min(this.lineLength - this.column, text.length - i);
			out += text.slice(i, i + take);
			i += take;
			this.column += take;
			if (this.column === this.lineLength) {
				out += '\n';
				this.column = 0;
			}
		}
		return out;
	}

	_transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
		const data = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
		const usable = data.length - (data.length % 3);
		this.rest = data.subarray(usable);
		if (usable) this.push(this.wrapLines(data.subarray(0, usable).toString('base64')));
		done();
	}

	_flush(done: TransformCallback): void {
		if (this.rest.length) this.push(this.wrapLines(this.rest.toString('base64')));
		done();
	}
}

export class InvalidBase64Error extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'InvalidBase64Error';
	}
}

const NOT_BASE64 = /[^A-Za-z0-9+/=\s]/;

/**
 * Decodes base64 text arriving in chunks of any size (whitespace and line breaks allowed) to
 * bytes. Characters outside the alphabet, data after padding and a truncated final quantum are
 * errors, so a cut or corrupted payload never passes as a shorter file.
 */
export class Base64Decode extends Transform {
	private rest = '';
	private padded = false;
	private total = 0;

	_transform(chunk: Buffer | string, _enc: BufferEncoding, done: TransformCallback): void {
		const text = typeof chunk === 'string' ? chunk : chunk.toString('latin1');
		if (NOT_BASE64.test(text)) {
			done(new InvalidBase64Error('Invalid base64: unexpected character in the data'));
			return;
		}
		const clean = this.rest + text.replace(/\s+/g, '');
		if (!clean) {
			done();
			return;
		}
		if (this.padded) {
			done(new InvalidBase64Error('Invalid base64: data after the final padding'));
			return;
		}
		const pad = clean.indexOf('=');
		if (pad !== -1 && !/^=*$/.test(clean.slice(pad))) {
			done(new InvalidBase64Error('Invalid base64: padding in the middle of the data'));
			return;
		}
		const usable = pad !== -1 ? clean.length : clean.length - (clean.length % 4);
		if (pad !== -1) {
			if (clean.length % 4 !== 0) {
				this.rest = clean;
				done();
				return;
			}
			this.padded = true;
		}
		this.rest = clean.slice(usable);
		if (usable) {
			const bytes = Buffer.from(clean.slice(0, usable), 'base64');
			this.total += bytes.length;
			this.push(bytes);
		}
		done();
	}

	_flush(done: TransformCallback): void {
		if (this.rest.length) {
			done(new InvalidBase64Error(`Invalid base64: the data ends in the middle of a group (${this.rest.length} characters left over)`));
			return;
		}
		done();
	}

	get bytesDecoded(): number {
		return this.total;
	}
}

/** Decodes a whole base64 string strictly (same rules as Base64Decode). */
export function decodeBase64Strict(text: string): Buffer {
	if (NOT_BASE64.test(text)) throw new InvalidBase64Error('Invalid base64: unexpected character in the data');
	const clean = text.replace(/\s+/g, '');
	if (clean.length % 4 !== 0) {
		throw new InvalidBase64Error(`Invalid base64: length ${clean.length} is not a multiple of 4 (truncated data)`);
	}
	const pad = clean.indexOf('=');
	if (pad !== -1 && (pad < clean.length - 2 || !/^=*$/.test(clean.slice(pad)))) {
		throw new InvalidBase64Error('Invalid base64: padding in the middle of the data');
	}
	return Buffer.from(clean, 'base64');
}
