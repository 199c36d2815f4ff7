/** Base64 across the chunks of a stream, both ways, for messages the sandbox never holds whole. */

/** Base64 text to bytes: each write decodes the whole groups of four characters so far (white space skipped). */
export class Base64Decoder {
	/** Characters of an unfinished group, decoded with the next write. */
	protected carry = '';

	write(text: string): Buffer {
		const clean = this.carry + text.replace(/\s+/g, '');
		const usable = clean.length - (clean.length % 4);
		this.carry = clean.slice(usable);
		return Buffer.from(clean.slice(0, usable), 'base64');
	}

	end(): Buffer {
		const rest = this.carry;
		this.carry = '';
		return Buffer.from(rest, 'base64');
	}
}

/** Bytes to base64 text (latin1 bytes): each push encodes the whole groups of three bytes so far. */
export class Base64Encoder {
	private carry = Buffer.alloc(0);

	push(chunk: Buffer): Buffer {
		const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
		const usable = data.length - (data.length % 3);
		this.carry = Buffer.from(data.subarray(usable));
		return Buffer.from(data.subarray(0, usable).toString('base64'), 'latin1');
	}

	end(): Buffer {
		const rest = Buffer.from(this.carry.toString('base64'), 'latin1');
		this.carry = Buffer.alloc(0);
		return rest;
	}
}
