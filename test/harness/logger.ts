/**
 * Captures everything n8n logs.
 *
 * Two loggers exist inside n8n-core: `LoggerProxy` from n8n-workflow (used by
 * the execution engine) and the `Logger` service of `@n8n/backend-common`
 * (what `this.logger` returns inside a node, and what n8n-core services get
 * injected). Both are pointed at one recording logger here. The `Logger`
 * class must be the copy n8n-core itself resolves: the project may also have
 * an unrelated, older `@n8n/backend-common` at the top of node_modules.
 *
 * Registration happens when this module is first imported, before any n8n
 * service asks the container for a logger (the real one would re-initialise
 * `LoggerProxy` with itself and print to the console).
 */
import { Container, type ServiceIdentifier } from '@n8n/di';
import { LoggerProxy, type Logger, type LogMetadata } from 'n8n-workflow';
import { createRequire } from 'node:module';
import { inspect } from 'node:util';

type Level = 'error' | 'warn' | 'info' | 'debug';

const lines: string[] = [];
const echo = process.env.HARNESS_LOG === '1' || process.env.HARNESS_LOG === 'true';

function describeError(error: Error): Record<string, unknown> {
	const extra = error as Error & {
		description?: unknown;
		httpCode?: unknown;
		context?: unknown;
		cause?: unknown;
	};
	return {
		name: error.name,
		message: error.message,
		description: extra.description,
		httpCode: extra.httpCode,
		context: extra.context,
		cause: extra.cause instanceof Error ? describeError(extra.cause) : extra.cause,
	};
}

/** JSON-ish rendering that survives errors, cycles, bigints and buffers. */
export function renderValue(value: unknown): string {
	const seen = new WeakSet<object>();
	try {
		return JSON.stringify(value, (_key, v: unknown) => {
			if (typeof v === 'bigint') return v.toString();
			if (v instanceof Error) return describeError(v);
			if (typeof v === 'object' && v !== null) {
				if (seen.has(v)) return '[Circular]';
				seen.add(v);
			}
			return v;
		});
	} catch {
		return inspect(value, { depth: 6, breakLength: Infinity });
	}
}

function record(level: string, message: unknown, metadata?: unknown): void {
	const text = typeof message === 'string' ? message : renderValue(message);
	const meta =
		metadata === undefined ||
		(typeof metadata === 'object' && metadata !== null && Object.keys(metadata).length === 0)
			? ''
			: ` ${renderValue(metadata)}`;
	const line = `[${level}] ${text}${meta}`;
	lines.push(line);
	if (echo) process.stderr.write(`${line}\n`);
}

/** Logger handed to n8n: records every call; `scoped()` returns a recorder tagged with the scope. */
class RecordingLogger implements Logger {
	constructor(private readonly scopes: string[] = []) {}

	private prefix(level: Level): string {
		return this.scopes.length ? `${level}:${this.scopes.join(',')}` : level;
	}

	error(message: string, metadata?: LogMetadata): void {
		record(this.prefix('error'), message, metadata);
	}

	warn(message: string, metadata?: LogMetadata): void {
		record(this.prefix('warn'), message, metadata);
	}

	info(message: string, metadata?: LogMetadata): void {
		record(this.prefix('info'), message, metadata);
	}

	debug(message: string, metadata?: LogMetadata): void {
		record(this.prefix('debug'), message, metadata);
	}

	scoped(scopes: string | string[]): RecordingLogger {
		return new RecordingLogger([...this.scopes, ...(Array.isArray(scopes) ? scopes : [scopes])]);
	}

	getInternalLogger(): this {
		return this;
	}
}

export const recordingLogger = new RecordingLogger();

const coreRequire = createRequire(require.resolve('n8n-core'));
const { Logger: CoreLogger } = coreRequire('@n8n/backend-common') as {
	Logger: ServiceIdentifier<unknown>;
};

let installed = false;

/** Idempotent: routes n8n's loggers to the recorder. */
export function installRecordingLogger(): void {
	if (installed) return;
	installed = true;
	Container.set(CoreLogger, recordingLogger);
	LoggerProxy.init(recordingLogger);
}

installRecordingLogger();

/** Position in the log, to slice out what one run logged. */
export function logMark(): number {
	return lines.length;
}

export function logsSince(mark: number): string[] {
	return lines.slice(mark);
}

/** Every line recorded in this test file so far. */
export function allLogs(): string[] {
	return [...lines];
}

const consoleMethods = ['log', 'info', 'warn', 'error', 'debug'] as const;

/**
 * Runs `fn` while console output is also recorded (nodes should use
 * `this.logger`, but anything printed with `console` is captured as well so
 * that tests can scan it). Output still reaches the real console.
 */
export async function withConsoleCaptured<T>(fn: () => Promise<T>): Promise<T> {
	const originals = consoleMethods.map((name) => [name, console[name]] as const);
	for (const [name, original] of originals) {
		console[name] = (...args: unknown[]) => {
			record(
				`console.${name}`,
				args.map((a) => (typeof a === 'string' ? a : renderValue(a))).join(' '),
			);
			original.apply(console, args);
		};
	}
	try {
		return await fn();
	} finally {
		for (const [name, original] of originals) console[name] = original;
	}
}
