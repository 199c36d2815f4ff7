import type { BxdOperation } from '../../shared/bxd';
import type { FileServiceOperation } from './common';
import { deleteFile } from './deleteFile';
import { downloadFile } from './downloadFile';
import { downloadFileList } from './downloadFileList';
import { getUserInfo } from './getUserInfo';
import { uploadFile } from './uploadFile';

export { rawRequest } from './rawRequest';

export const fileServiceOperations: Record<BxdOperation, FileServiceOperation> = {
	uploadFile,
	downloadFileList,
	downloadFile,
	deleteFile,
	getUserInfo,
};
