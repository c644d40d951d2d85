// Search attributes shown and filterable in the Temporal Web UI (e.g. `ReviewStage="generating"`).
// Pure definitions: imported by workflows (to upsert), the callback receiver (to read which tasks a run
// has indexed), the client helpers (to filter) and the dev-server starter (to register).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const ReviewStage = defineSearchAttributeKey('ReviewStage', SearchAttributeType.KEYWORD);
export const VideoModel = defineSearchAttributeKey('VideoModel', SearchAttributeType.KEYWORD);
export const ReviewTaskIds = defineSearchAttributeKey('ReviewTaskIds', SearchAttributeType.KEYWORD_LIST);
export const VideoTaskId = defineSearchAttributeKey('VideoTaskId', SearchAttributeType.KEYWORD);
export const BatchId = defineSearchAttributeKey('BatchId', SearchAttributeType.KEYWORD);

export const allSearchAttributes = [ReviewStage, VideoModel, ReviewTaskIds, VideoTaskId, BatchId];
