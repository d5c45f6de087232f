import Type from 'typebox';

export const DataAvailableBody = Type.Object(
  {
    sourceId: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'The numeric source (provider) ID: the N of sig_N, as the core pushes take it',
    }),
  },
  { additionalProperties: false },
);

export const DataAvailableResponse = Type.Object({
  success: Type.Literal(true),
  jobId: Type.Integer({ description: 'The import job (`hearth jobs show <jobId>`)' }),
  created: Type.Boolean({ description: 'false when a job for this source was already queued or running: that one is answered' }),
});
