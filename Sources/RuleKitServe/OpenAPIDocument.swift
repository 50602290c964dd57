// The service's contract: the OpenAPI 3.1 document `GET /openapi.yaml` answers with. `docs/openapi.yaml` is
// this text (a test holds the two equal; `RULEKIT_UPDATE_GOLDEN=1 swift test --filter OpenAPIDocumentTests`
// writes the file from here); `openapi-spec-validator` checks it and schemathesis fuzzes the service
// against it in `.ci/run`.

/// The OpenAPI document of `rulekit serve`.
public enum OpenAPIDocument {
    /// The document, as YAML.
    public static let yaml = #"""
        openapi: 3.1.0
        info:
          title: rulekit serve
          version: 0.2.0
          summary: RuleKit's rules engine as an enrichment service for a fleet.
          description: |
            Batches of events in, the events their rules produced out, exactly as `rulekit run` writes them for the
            same input. Every error is one JSON shape (`Error`). When the service runs with `--auth-token-file`,
            every route but `/healthz` and `/readyz` needs `Authorization: Bearer TOKEN`; the admin routes
            (`/v1/history/…`, a person's export and erasure; `/v1/postbacks/dead…`, the postback queue's dead
            letters) need a token of `--admin-token-file` and are off without it. See docs/serving.md.
          license:
            name: Apache-2.0
            identifier: Apache-2.0
        servers:
          - url: http://127.0.0.1:8080
        security:
          - bearer: []
        paths:
          /v1/events:
            post:
              operationId: enrich
              summary: Run a batch of events through the rules.
              description: |
                The body is JSON lines (one event per line), a JSON array of events, one event, or an envelope
                `{"events": [...], "states": {...}, "xdmStates": {...}}` carrying the device's shared states for the
                batch. Nothing of a batch is accepted unless all of it is: a 4xx means no event was processed, a
                200 that every event was. An event's `id` keys the history it causes (exactly once on retries).
                A body holds at most `--max-events` events (10,000 by default) and `--max-body` bytes (16 MiB): more
                is a 413.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      oneOf:
                        - $ref: '#/components/schemas/Event'
                        - type: array
                          minItems: 1
                          items:
                            $ref: '#/components/schemas/Event'
                        - $ref: '#/components/schemas/Envelope'
                  application/x-ndjson:
                    schema:
                      type: string
                      description: One event (the `Event` schema) per line; blank lines are skipped.
              responses:
                '200':
                  description: Each event of the batch as delivered after the rules ran, and every event they dispatched, in hub order.
                  content:
                    application/x-ndjson:
                      schema:
                        type: string
                '400':
                  $ref: '#/components/responses/BadRequest'
                '401':
                  $ref: '#/components/responses/Unauthorized'
                '413':
                  $ref: '#/components/responses/TooLarge'
                '429':
                  $ref: '#/components/responses/Busy'
                '503':
                  $ref: '#/components/responses/Unavailable'
          /v1/xdm/validate:
            post:
              operationId: validateXDM
              summary: Validate XDM payloads against the ExperienceEvent class of the schema folder.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      description: One payload, or a non-empty array of payloads.
                      not:
                        type: array
                        maxItems: 0
                  application/x-ndjson:
                    schema:
                      type: string
                      description: One payload per line.
              responses:
                '200':
                  description: One verdict per payload, in order, one per line (`Verdict`).
                  content:
                    application/x-ndjson:
                      schema:
                        type: string
                '400':
                  $ref: '#/components/responses/BadRequest'
                '401':
                  $ref: '#/components/responses/Unauthorized'
                '404':
                  description: The service runs without an XDM schema folder (`--schemas`).
                  content:
                    application/json:
                      schema:
                        $ref: '#/components/schemas/Error'
                '413':
                  $ref: '#/components/responses/TooLarge'
          /v1/history/{identity}:
            parameters:
              - name: identity
                in: path
                required: true
                description: The identity, as events carry it, percent-encoded (1 to 1,024 bytes).
                schema:
                  type: string
                  minLength: 1
            get:
              operationId: exportHistory
              summary: One person's history records, oldest first (admin token).
              security:
                - admin: []
              responses:
                '200':
                  $ref: '#/components/responses/Exported'
                '400':
                  $ref: '#/components/responses/BadRequest'
                '401':
                  $ref: '#/components/responses/Unauthorized'
                '403':
                  $ref: '#/components/responses/Forbidden'
                '404':
                  $ref: '#/components/responses/AdminOff'
                '503':
                  $ref: '#/components/responses/StoreDown'
            delete:
              operationId: deleteHistory
              summary: Erase one person's history records — all, or some masks', or a window's (admin token).
              description: |
                Leaves a tombstone: a record it covers that arrives later (a spool replayed, another server's late
                block) is dropped on write. An identity the store does not know erases 0.
              security:
                - admin: []
              parameters:
                - name: mask
                  in: query
                  description: A history mask as rules write it, as JSON (`{"visit.page":"home"}`); repeatable.
                  content:
                    application/json:
                      schema:
                        type: object
                - name: maskHash
                  in: query
                  description: A mask's hash as the export shows it; repeatable.
                  schema:
                    type: integer
                    minimum: 0
                    maximum: 4294967295
                - name: from
                  in: query
                  description: Only records at or after this time, in milliseconds since 1970 (ISO 8601 is taken too).
                  schema:
                    type: number
                - name: to
                  in: query
                  description: Only records at or before this time (as `from`).
                  schema:
                    type: number
              responses:
                '200':
                  $ref: '#/components/responses/Deleted'
                '400':
                  $ref: '#/components/responses/BadRequest'
                '401':
                  $ref: '#/components/responses/Unauthorized'
                '403':
                  $ref: '#/components/responses/Forbidden'
                '404':
                  $ref: '#/components/responses/AdminOff'
                '503':
                  $ref: '#/components/responses/StoreDown'
          /v1/history/export:
            post:
              operationId: exportHistoryByBody
              summary: As `GET /v1/history/{identity}`, the identity in the body (out of access logs).
              security:
                - admin: []
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [identity]
                      additionalProperties: false
                      properties:
                        identity:
                          type: string
                          minLength: 1
              responses:
                '200':
                  $ref: '#/components/responses/Exported'
                '400':
                  $ref: '#/components/responses/BadRequest'
                '401':
                  $ref: '#/components/responses/Unauthorized'
                '403':
                  $ref: '#/components/responses/Forbidden'
                '404':
                  $ref: '#/components/responses/AdminOff'
                '413':
                  $ref: '#/components/responses/TooLarge'
                '503':
                  $ref: '#/components/responses/StoreDown'
          /v1/history/delete:
            post:
              operationId: deleteHistoryByBody
              summary: As `DELETE /v1/history/{identity}`, the identity in the body (out of access logs).
              security:
                - admin: []
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      $ref: '#/components/schemas/Erasure'
              responses:
                '200':
                  $ref: '#/components/responses/Deleted'
                '400':
                  $ref: '#/components/responses/BadRequest'
                '401':
                  $ref: '#/components/responses/Unauthorized'
                '403':
                  $ref: '#/components/responses/Forbidden'
                '404':
                  $ref: '#/components/responses/AdminOff'
                '413':
                  $ref: '#/components/responses/TooLarge'
                '503':
                  $ref: '#/components/responses/StoreDown'
          /v1/postbacks/dead:
            get:
              operationId: postbackDeadLetters
              summary: The postback queue's dead letters, in the order they died, without their bodies (admin token).
              security:
                - admin: []
              responses:
                '200':
                  description: One JSON object per line (`DeadLetter`); none when the queue has none.
                  content:
                    application/x-ndjson:
                      schema:
                        type: string
                '401':
                  $ref: '#/components/responses/Unauthorized'
                '403':
                  $ref: '#/components/responses/Forbidden'
                '404':
                  $ref: '#/components/responses/NoPostbacks'
                '503':
                  $ref: '#/components/responses/QueueDown'
            delete:
              operationId: purgePostbackDeadLetters
              summary: Removes every dead letter of the postback queue (admin token).
              security:
                - admin: []
              responses:
                '200':
                  description: How many dead letters were removed.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [purged]
                        properties:
                          purged:
                            type: integer
                            minimum: 0
                '401':
                  $ref: '#/components/responses/Unauthorized'
                '403':
                  $ref: '#/components/responses/Forbidden'
                '404':
                  $ref: '#/components/responses/NoPostbacks'
                '503':
                  $ref: '#/components/responses/QueueDown'
          /v1/postbacks/dead/retry:
            post:
              operationId: retryPostbackDeadLetters
              summary: Puts every dead letter back in the postback queue, attempts from 0; delivery sends them (admin token).
              security:
                - admin: []
              responses:
                '200':
                  description: How many dead letters were put back.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [retried]
                        properties:
                          retried:
                            type: integer
                            minimum: 0
                '401':
                  $ref: '#/components/responses/Unauthorized'
                '403':
                  $ref: '#/components/responses/Forbidden'
                '404':
                  $ref: '#/components/responses/NoPostbacks'
                '503':
                  $ref: '#/components/responses/QueueDown'
          /v1/rules:
            get:
              operationId: rules
              summary: The rules in force and how the last load went.
              responses:
                '200':
                  description: The rules in force.
                  content:
                    application/json:
                      schema:
                        $ref: '#/components/schemas/RulesStatus'
                '401':
                  $ref: '#/components/responses/Unauthorized'
          /metrics:
            get:
              operationId: metrics
              summary: Prometheus metrics.
              responses:
                '200':
                  description: Prometheus text exposition format.
                  content:
                    text/plain:
                      schema:
                        type: string
                '401':
                  $ref: '#/components/responses/Unauthorized'
          /openapi.yaml:
            get:
              operationId: contract
              summary: This document.
              responses:
                '200':
                  description: The OpenAPI document.
                  content:
                    application/yaml: {}
                '401':
                  $ref: '#/components/responses/Unauthorized'
          /healthz:
            get:
              operationId: health
              summary: Whether the process runs (never needs a token).
              security: []
              responses:
                '200':
                  description: The process runs.
                  content:
                    text/plain:
                      schema:
                        type: string
                        const: "ok\n"
          /readyz:
            get:
              operationId: ready
              summary: Whether batches are taken (never needs a token).
              security: []
              responses:
                '200':
                  description: Batches are taken.
                  content:
                    application/json:
                      schema:
                        $ref: '#/components/schemas/Readiness'
                '503':
                  description: Shutting down.
                  content:
                    application/json:
                      schema:
                        $ref: '#/components/schemas/Readiness'
        components:
          securitySchemes:
            bearer:
              type: http
              scheme: bearer
              description: A token of the `--auth-token-file` file (one per line, reloaded on SIGHUP).
            admin:
              type: http
              scheme: bearer
              description: |
                A token of the `--admin-token-file` file: the only tokens the history routes take (an ingest token
                is not one unless listed in both).
          responses:
            Exported:
              description: The identity's records, oldest first, one JSON object per line (`ExportedRecord`); none for an identity the store does not know.
              content:
                application/x-ndjson:
                  schema:
                    type: string
            Deleted:
              description: How many records were erased.
              content:
                application/json:
                  schema:
                    type: object
                    required: [deleted]
                    properties:
                      deleted:
                        type: integer
                        minimum: 0
            Forbidden:
              description: The token is an ingest token, not an admin token.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Error'
            AdminOff:
              description: The service runs without `--admin-token-file`, so the admin routes are off.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Error'
            NoPostbacks:
              description: >-
                The admin routes are off (no `--admin-token-file`), or the service sends no postbacks (no
                `--postbacks DIR`).
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Error'
            QueueDown:
              description: The postback queue's file cannot be used; nothing was changed. Retry.
              headers:
                Retry-After:
                  required: true
                  schema:
                    type: string
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Error'
            StoreDown:
              description: The history store is down or did not answer in time; nothing was changed. Retry.
              headers:
                Retry-After:
                  required: true
                  schema:
                    type: string
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Error'
            BadRequest:
              description: The body is not JSON, is empty, or an event is not an `Event` (the error names it and the member).
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Error'
            Unauthorized:
              description: No bearer token, or one the service does not know.
              headers:
                WWW-Authenticate:
                  required: true
                  schema:
                    type: string
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Error'
            TooLarge:
              description: A body over `--max-body` bytes or with more than `--max-events` events.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Error'
            Busy:
              description: The queue is full; nothing of the batch was accepted.
              headers:
                Retry-After:
                  required: true
                  schema:
                    type: string
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Error'
            Unavailable:
              description: The batch's history could be kept nowhere, the postback queue (`--postbacks`) is full, or the service is shutting down; retry the batch.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Error'
          schemas:
            Erasure:
              type: object
              required: [identity]
              additionalProperties: false
              properties:
                identity:
                  type: string
                  minLength: 1
                masks:
                  type: array
                  description: History masks as rules write them; their records are erased (none given, every record).
                  items:
                    type: object
                maskHashes:
                  type: array
                  items:
                    type: integer
                    minimum: 0
                    maximum: 4294967295
                from:
                  description: Only records at or after this time, in milliseconds since 1970 (ISO 8601 text is taken too).
                  type: number
                to:
                  description: Only records at or before this time (as `from`).
                  type: number
            ExportedRecord:
              type: object
              required: [identity, hash, timestamp, ms, key]
              properties:
                identity:
                  type: string
                hash:
                  type: integer
                  description: The hash of the recorded event's masked data.
                timestamp:
                  type: string
                  format: date-time
                ms:
                  type: number
                key:
                  type: string
                  description: The event that caused the record and its place among that event's ("" where the store keeps none).
            DeadLetter:
              type: object
              description: A postback that could not be delivered; its body is left out (it may hold personal data).
              required: [key, kind, receiver, method, url, attempts, lastError, queuedAt]
              properties:
                key:
                  type: string
                  description: The hit's `Idempotency-Key`.
                kind:
                  type: string
                  enum: [pb, pii]
                receiver:
                  type: string
                  description: The receiver's `host:port`.
                method:
                  type: string
                url:
                  type: string
                attempts:
                  type: integer
                lastError:
                  type: [string, "null"]
                queuedAt:
                  type: number
                  description: When it was queued, in seconds since 1970.
            Event:
              type: object
              required: [type, source]
              additionalProperties: false
              properties:
                id:
                  type: string
                  description: Keys the history the event causes; a UUID is used as is, other text maps to a fixed UUID.
                name:
                  type: string
                type:
                  type: string
                source:
                  type: string
                data:
                  type: object
                mask:
                  type: array
                  items:
                    type: string
            Envelope:
              type: object
              required: [events]
              additionalProperties: false
              properties:
                events:
                  type: array
                  minItems: 1
                  items:
                    $ref: '#/components/schemas/Event'
                states:
                  $ref: '#/components/schemas/States'
                xdmStates:
                  $ref: '#/components/schemas/States'
            States:
              type: object
              description: Shared states by extension name, standing in for the published ones while the batch is evaluated.
              additionalProperties:
                type: object
            Error:
              type: object
              required: [error]
              properties:
                error:
                  type: string
                line:
                  type: integer
                  description: The line of the body the problem is on (one-based).
                column:
                  type: integer
                index:
                  type: integer
                  description: The position of the event in the batch (zero-based).
                pointer:
                  type: string
                  description: The JSON pointer of the member within the event.
            RulesStatus:
              type: object
              required: [count, contentHash, loadedAt, lastAttempt, sources]
              properties:
                count:
                  type: integer
                contentHash:
                  type: string
                sources:
                  type: array
                  description: The version in force of each rules URL (empty for rules from files).
                  items:
                    $ref: '#/components/schemas/RulesVersion'
                loadedAt:
                  type: string
                  format: date-time
                lastAttempt:
                  type: object
                  required: [at, loaded, diagnostics]
                  properties:
                    at:
                      type: string
                      format: date-time
                    loaded:
                      type: boolean
                    diagnostics:
                      type: array
                      items:
                        type: object
                        required: [severity, code, message]
                        properties:
                          severity:
                            type: string
                          code:
                            type: string
                          message:
                            type: string
                          location:
                            type: string
            RulesVersion:
              type: object
              required: [url, bodyHash, fetchedAt, fromCache]
              properties:
                url:
                  type: string
                  description: The rules URL, without credentials or query.
                etag:
                  type: string
                lastModified:
                  type: string
                bodyHash:
                  type: string
                  description: FNV-1a 64 of the body in force, hexadecimal.
                fetchedAt:
                  type: string
                  format: date-time
                fromCache:
                  type: boolean
                  description: Whether the publisher was not reached at start and the cached version serves.
            Readiness:
              type: object
              required: [ready, history, rules]
              properties:
                ready:
                  type: boolean
                rules:
                  type: object
                  required: [count, contentHash, sources]
                  properties:
                    count:
                      type: integer
                    contentHash:
                      type: string
                    sources:
                      type: array
                      items:
                        $ref: '#/components/schemas/RulesVersion'
                error:
                  type: string
                history:
                  type: object
                  required: [breaker, spooled]
                  properties:
                    breaker:
                      type: string
                      enum: [open, closed]
                    spooled:
                      type: integer
                postbacks:
                  type: object
                  description: With `--postbacks`, the queue's depth and its dead letters.
                  required: [depth, deadLetters]
                  properties:
                    depth:
                      type: integer
                    deadLetters:
                      type: integer
            Verdict:
              type: object
              required: [line, valid, errors]
              properties:
                line:
                  type: integer
                valid:
                  type: boolean
                errors:
                  type: array
                  items:
                    type: object
                    required: [path, message]
                    properties:
                      path:
                        type: string
                      message:
                        type: string
        """#
}
