// The failure converter of an encrypting worker or client (DataConverter.failureConverterPath): failure
// messages and stack traces move into an encoded payload, which the payload codec then encrypts.
// CommonJS because the SDK require()s this path in the worker's main thread (from dist/ and from source
// alike) and webpack bundles it into the workflow code; the build copies it to dist/codec/.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
