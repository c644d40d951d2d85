// The library's `temporal-review-video/sandbox` export: the sandbox is its own package
// (temporal-review-video-sandbox, an optional peer dependency: install it next to the library to use this).
export * from 'temporal-review-video-sandbox';
