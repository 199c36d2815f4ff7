import { databaseBinaryLimit } from '../../nodes/shared/common/binaryOutput';

const MiB = 1024 * 1024;

// The cluster e2e test (test/e2e/cluster.e2e.ts) shows the refusal in real n8n queue mode.
describe("n8n's binary storage limit as the File Service reads it", () => {
	it('is n8n’s database default (512 MiB) in queue mode, where n8n stores binary data in its database', () => {
		expect(databaseBinaryLimit({ EXECUTIONS_MODE: 'queue' })).toBe(512 * MiB);
	});

	it('follows N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE and an explicit database mode', () => {
		expect(databaseBinaryLimit({ EXECUTIONS_MODE: 'queue', N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: '128' })).toBe(128 * MiB);
		expect(databaseBinaryLimit({ N8N_DEFAULT_BINARY_DATA_MODE: 'database' })).toBe(512 * MiB);
		expect(databaseBinaryLimit({ N8N_DEFAULT_BINARY_DATA_MODE: 'database', N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: 'x' })).toBe(512 * MiB);
	});

	it('is none for the streaming modes (filesystem outside queue mode, S3 in queue mode)', () => {
		expect(databaseBinaryLimit({})).toBeUndefined();
		expect(databaseBinaryLimit({ EXECUTIONS_MODE: 'regular' })).toBeUndefined();
		expect(databaseBinaryLimit({ EXECUTIONS_MODE: 'queue', N8N_DEFAULT_BINARY_DATA_MODE: 's3' })).toBeUndefined();
		expect(databaseBinaryLimit({ N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' })).toBeUndefined();
	});
});
