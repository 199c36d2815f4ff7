import type { FxOperation } from '../target';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as getOpen from './getOpen.operation';

/**
 * The report operations by name: the FX Trade Report node runs them against the bank, the Bank
 * Mock Service against its mock target.
 */
export const reportOperations: Record<string, FxOperation> = {
	get: get.execute,
	getMany: getMany.execute,
	getOpen: getOpen.execute,
};
