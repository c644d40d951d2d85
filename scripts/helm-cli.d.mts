export declare const HELM_VERSION: string;
export declare function locateHelmCli(): { path: string | undefined; version: string | undefined; route: string };
