import { contextOf, type HearthApp } from '../../http/types.ts';
import { DataAvailableBody, DataAvailableResponse } from './source-import.schemas.ts';
import type { SourceImportService } from './source-import.service.ts';

export function sourceImportRoutes(app: HearthApp, services: { sourceImports: SourceImportService }) {
  app.post(
    '/api/v2/data-available',
    {
      config: { auth: { all: ['sources:write'] }, errors: 'message' },
      schema: {
        operationId: 'notifyDataAvailable',
        tags: ['v2'],
        summary: 'Notify new data available',
        description:
          'Enqueues a durable import-and-augmentation job for the source and answers at once. For a file source ' +
          '(`hearth source create --kind file --path DIR`, or `POST /api/v2/admin/sources` under `HEARTH_FILE_SOURCE_ROOT`) ' +
          "the job first imports the folder's new `*.jsonl` files, " +
          'each line `{"type": "user" | "activity" | "organization", ...}` with the body of that core push; then, for ' +
          'every source, it re-derives organizations, locations and topics where missing for what the source ' +
          'touched since its last run. While a job for the source is queued or running, a call answers that job. ' +
          "Errors are `{success: false, message}`: 400 for a bad body, 404 for a source that is not this community's, " +
          '409 for a file source made through the API whose folder is no longer under `HEARTH_FILE_SOURCE_ROOT`.',
        body: DataAvailableBody,
        response: { 200: DataAvailableResponse },
      },
    },
    async (request) => ({ success: true as const, ...(await services.sourceImports.notify(contextOf(request), request.body.sourceId)) }),
  );
}
