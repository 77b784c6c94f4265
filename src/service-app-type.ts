/**
 * What the routes of render/, jobs/ and metadata/ are registered on: a Fastify instance with TypeBox
 * schemas and the hooks app/service-auth.ts gives it. Declared here, below every service, so that a
 * domain's routes never import app/, which imports them.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ApiService } from './config.js';

/** Who an authenticated request is from. */
export interface AuthContext {
  accountId: string;
  keyId: string;
  service: ApiService;
  /** False for requests that neither count against the rate limit nor as usage (reading a job's state). */
  metered?: boolean;
  /** Renders the request counts as in usage (an assembly: its parts); 1 when unset. */
  units?: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What the route's body holds at most, named in its 413 beside the route's `bodyLimit`
     * (`html: at most 10 MiB`), so a client learns which of its fields to make smaller.
     */
    bodyHolds?: string;
  }
  interface FastifyInstance {
    /** onRequest hook: key check, rate limit, usage; runs before the body is read. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
    /**
     * onRequest hook for reads (polling a job, listing, downloading): key check and a limit of its own,
     * READS_PER_LIMIT × the account's limit with its own RateLimit fields; neither spends the rate limit nor counts as usage.
     */
    authenticateKey: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
    /**
     * Counts `extra` more requests of a request `authenticate` admitted against the same limit (an
     * assembly's parts beyond the first), at most the limit in all (`charged`: how many that made), or none
     * of them when they do not fit (`allowed` false: the window is left as it was); sets the RateLimit field
     * again. Usage counts all 1 + `extra` of them.
     */
    spendMore: (
      request: FastifyRequest,
      reply: FastifyReply,
      extra: number,
    ) => Promise<{ allowed: boolean; limit: number; retryAfterS: number; charged: number }>;
  }
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

/** A Fastify instance whose route schemas are TypeBox types. */
export type ServiceApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Sends a service-shaped error and returns the reply. */
export type SendError = (reply: FastifyReply, status: number, code: string, message: string) => FastifyReply | undefined;
