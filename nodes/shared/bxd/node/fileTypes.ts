import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { prepareRequest } from '../index';
import { sendPrepared } from './request';
import { loadServiceContext } from './serviceContext';

/** Common file types offered as suggestions; any other code can be typed. */
export const FILE_TYPE_SUGGESTIONS: INodeListSearchItems[] = [
	{ name: 'XL: SEPA Credit Transfer (pain.001), Upload', value: 'XL' },
	{ name: 'XP: Payment Status Report (pain.002), Download', value: 'XP' },
	{ name: 'XT: Account Statement (camt.053), Download', value: 'XT' },
	{ name: 'camt.053.001.02: Account Statement', value: 'camt.053.001.02' },
	{ name: 'pain.001.001.03: Credit Transfer Initiation', value: 'pain.001.001.03' },
	{ name: 'pain.002.001.03: Payment Status Report', value: 'pain.002.001.03' },
];

/**
 * The File Type list search of every node on the File Service credential: the common codes plus
 * the types the bank reports for this user (when it answers), and what was typed.
 */
export async function searchFileTypes(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const results = [...FILE_TYPE_SUGGESTIONS];
	try {
		const service = await loadServiceContext(this);
		// The bank profile's own codes first (nodes/shared/bxd/bankProfiles.ts names their sources).
		for (const type of service.profile?.fileTypes ?? []) {
			if (!results.some((r) => r.value === type.code))
				results.push({ name: `${type.code}: ${type.label}`, value: type.code });
		}
		if (service.profile && !service.profile.hasGetUserInfo)
			throw new Error(`${service.profile.name} has no getUserInfo`);
		const prepared = prepareRequest(service.settings, 'getUserInfo', {});
		const answer = await sendPrepared(this, service, prepared, {
			itemIndex: 0,
			endpoint: 'standard',
			timeoutMs: 15000,
		});
		for (const type of answer.applicationResponse?.userFileTypes ?? []) {
			if (!type.fileType || results.some((r) => r.value === type.fileType)) continue;
			results.push({
				name: `${type.fileType}${type.fileTypeName ? `: ${type.fileTypeName}` : ''}${type.direction ? `, ${type.direction}` : ''}`,
				value: type.fileType,
			});
		}
	} catch (error) {
		// The suggestions still work without the bank; say why its own types are missing.
		results.push({
			name: `(Bank's own file types unavailable: ${(error as Error).message})`,
			value: '',
		});
	}
	const needle = filter?.trim().toLowerCase() ?? '';
	const matching = needle
		? results.filter((r) => `${r.name} ${String(r.value)}`.toLowerCase().includes(needle))
		: results;
	const typed = filter?.trim();
	if (typed && !matching.some((r) => String(r.value).toLowerCase() === typed.toLowerCase())) {
		matching.unshift({ name: `Use "${typed}"`, value: typed });
	}
	return { results: matching.filter((r) => r.value !== '' || !needle) };
}
