import type { FxOperation } from '../target';
import * as executeTrade from './executeTrade.operation';

/**
 * The execution operations by name: the FX Trade Execution node runs them against the bank, the
 * Bank Mock Service against its mock target.
 */
export const executionOperations: Record<string, FxOperation> = {
	executeTrade: executeTrade.execute,
};
