export declare const TEMPORAL_CLI_VERSION: string;
export declare function locateTemporalCli(): { path: string | undefined; version: string | undefined; route: string };
