/**
 * What every file trigger shares to hand each bank file to the workflow once (the Bank File
 * Trigger over bxd, the EBICS Trigger): the memory of delivered files in static data, Output
 * Parsed Entries and its options, and the sample file of "Fetch Test Event". How a file is known
 * and when the bank is told it was delivered stay with each trigger (see docs/guarantees.md).
 */
export { DeliveredFiles } from './memory';
export { parsedItems, type ParseSettings } from './parsed';
export {
	PARSE_OUTPUT,
	parseOptionsProperty,
	readParseOptions,
	text,
	wholeNumber,
} from './parseOptions';
export { formatNamed, SAMPLE_REFERENCE, sampleItems, type SampleRequest } from './sample';
export { SAMPLE_FILES, type SampleFile } from './samples';
