// Calls of the gateway entry points (gateway-endpoints.ts), shared by the VideoClient methods: path
// parameters checked and encoded, the body checked (a JSON object, or FormData where multipart is
// accepted; the well-known schema on request), then sent through the client's own request helper, so the
// bearer auth, deadline and ServiceError classification are the native API's. The answer is kept whole.
import { FormData as UndiciFormData } from 'undici';
import { RequestValidationError } from '../../model/validation.js';
import { isFormData, type HttpMethod, type HttpResponse } from '../http.js';
import {
  DEFAULT_VENDOR_B_QUERY_PATH,
  fillPath,
  GATEWAY_ENDPOINTS,
  gatewayOperation,
  isGatewayEndpointName,
  templateParams,
  type GatewayEndpointName,
  type GatewayParam,
} from '../../model/video/gateway-endpoints.js';
import { validateGatewayBody, validateGatewayForm } from '../../model/video/gateway-schemas.js';

export type JsonObject = Record<string, unknown>;
/** A FormData of undici or of Node's globals (the same implementation). */
export type MultipartBody = UndiciFormData | FormData;

export interface GatewayCallOptions {
  /** Check the body against the minimal well-known schema of the path first (no-op where none exists). */
  checkWellKnown?: boolean;
}

export interface GatewayRequest extends GatewayCallOptions {
  params?: Partial<Record<GatewayParam, string>>;
  body?: JsonObject | MultipartBody;
}

export interface GatewayResponse {
  endpoint: GatewayEndpointName;
  status: number;
  /** The parsed JSON answer, whole (known secrets redacted); undefined for an empty body. */
  body: unknown;
}

export interface GatewayClientOptions {
  /** Vendor B's query path (not in the spec): a template with `{task_id}`, or false = create only. */
  vendorBQueryPath?: string | false;
}

export type GatewaySend = (
  operation: string,
  method: HttpMethod,
  path: string,
  body?: unknown,
) => Promise<HttpResponse>;

export class GatewayCaller {
  readonly #send: GatewaySend;
  readonly #vendorBQueryPath: string | false;

  constructor(send: GatewaySend, options: GatewayClientOptions = {}) {
    const b = options.vendorBQueryPath ?? DEFAULT_VENDOR_B_QUERY_PATH;
    if (b !== false) {
      const params = templateParams(b);
      if (!b.startsWith('/') || params.length !== 1 || params[0] !== 'task_id') {
        throw new TypeError(
          'VideoClient: gateway.vendorBQueryPath must start with / and contain {task_id} as its only parameter (or be false)',
        );
      }
    }
    this.#send = send;
    this.#vendorBQueryPath = b;
  }

  /** The path template an endpoint is called at; undefined when it is not available (vendor B create only). */
  pathTemplate(name: GatewayEndpointName): string | undefined {
    if (name === 'vendorBTaskGet') return this.#vendorBQueryPath || undefined;
    return GATEWAY_ENDPOINTS[name].path;
  }

  async call(name: GatewayEndpointName, request: GatewayRequest = {}): Promise<GatewayResponse> {
    if (!isGatewayEndpointName(name)) {
      throw new RequestValidationError('video.gateway', [
        { field: 'endpoint', rule: `must be one of ${Object.keys(GATEWAY_ENDPOINTS).join(', ')}` },
      ]);
    }
    const operation = gatewayOperation(name);
    const endpoint = GATEWAY_ENDPOINTS[name];
    const template = this.pathTemplate(name);
    if (template === undefined) {
      throw new RequestValidationError(operation, [
        {
          field: 'gateway.vendorBQueryPath',
          rule: 'is false: vendor B tasks are create-only with this client (configure the query path to poll them)',
        },
      ]);
    }
    const path = fillPath(operation, template, request.params);
    const body = request.body;
    if (endpoint.body === 'none') {
      if (body !== undefined)
        throw new RequestValidationError(operation, [
          { field: '(body)', rule: `must be absent (${endpoint.method} ${endpoint.path} takes none)` },
        ]);
    } else if (endpoint.body === 'json-or-multipart' && isFormData(body)) {
      const checked = validateGatewayForm(name, [...new Set(body.keys())], body.get('stream'), request.checkWellKnown);
      if (!checked.ok) throw new RequestValidationError(operation, checked.issues);
    } else {
      const checked = validateGatewayBody(name, body, request.checkWellKnown);
      if (!checked.ok) throw new RequestValidationError(operation, checked.issues);
    }
    const res = await this.#send(operation, endpoint.method, path, isFormData(body) ? asUndiciForm(body) : body);
    return { endpoint: name, status: res.status, body: res.body };
  }
}

/** undici's request encodes only its own FormData (a brand check): copy a global one's entries over. */
function asUndiciForm(form: MultipartBody): UndiciFormData {
  if (form instanceof UndiciFormData) return form;
  const copy = new UndiciFormData();
  for (const [name, value] of (form as UndiciFormData).entries()) {
    if (typeof value === 'string') copy.append(name, value);
    else copy.append(name, value, value.name);
  }
  return copy;
}
