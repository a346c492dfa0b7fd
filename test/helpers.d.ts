/** A fresh directory for one test file's embedded chDB or capture files. */
export declare function tempDir(prefix: string): string;
/** A name no other test uses, for topics, consumer groups and tables. */
export declare function uniqueName(prefix: string): string;
//# sourceMappingURL=helpers.d.ts.map
