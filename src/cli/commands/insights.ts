import { community, communityWriter, type Command } from '../command.ts';

export const insightsCommand: Command = {
  name: 'insights',
  run: {
    async ''({ services, values, emit }) {
      const status = await services.insights.status(await community(services, values.community));
      const job = status.latestJob;
      const lines = [
        status.configured
          ? `Model: ${status.model} (looks for due work every ${status.intervalSeconds} s; 0: only when asked)`
          : 'Model: none configured (HEARTH_LLM_URL); the texts are the deterministic ones',
        `Contacts with the model's text: ${status.contactsWithModelText}`,
        `Research answers by the model: ${status.modelResearchAnswers}`,
        job ? `Latest run: job ${job.jobId}, ${job.status}: ${job.error ?? JSON.stringify(job.result ?? job.progress)}` : 'Latest run: none',
      ];
      emit(status, lines.join('\n'));
      return 0;
    },
    async refresh({ services, values, emit }) {
      const job = await services.insights.refresh(await communityWriter({ services, values }), { all: values.all ?? false });
      emit(
        job,
        job.created
          ? `Queued job ${job.jobId}; a serving process runs it (\`hearth jobs show ${job.jobId}\`).`
          : `Job ${job.jobId} is already queued or running.`,
      );
      return 0;
    },
  },
};
