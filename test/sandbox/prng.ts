/** Small deterministic PRNG (mulberry32) with helpers. Not for cryptography. */
export class Prng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	/** Uniform number in [0, 1). */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/** Integer in [min, max]. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	/** Number in [min, max). */
	range(min: number, max: number): number {
		return min + this.next() * (max - min);
	}

	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)];
	}

	/** Picks by weight: entries are [value, weight]. */
	weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
		const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
		let roll = this.next() * total;
		for (const [value, weight] of entries) {
			roll -= weight;
			if (roll < 0) return value;
		}
		return entries[entries.length - 1][0];
	}

	chance(probability: number): boolean {
		return this.next() < probability;
	}

	/** Deterministic hex string of `length` characters. */
	hex(length: number): string {
		let out = '';
		while (out.length < length) out += this.int(0, 15).toString(16);
		return out;
	}
}
