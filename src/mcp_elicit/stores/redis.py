"""The Redis engine (``redis://host:port/db?prefix=...``, ``rediss://`` for TLS), for several
server instances sharing flows and secrets; with a :class:`~mcp_elicit.stores.FinishFeed`
through pub/sub.

Keys, all under ``prefix`` (default ``mcp-elicit:``, so deployments can share a Redis):

- ``flow:<id>`` — a hash: the record's fields (times as ``repr`` of the float, so they come
  back exact; ``details`` as JSON), ``result`` when a completed flow kept one, and
  ``live_key``, the name of its owner's index (below). Its TTL is the flow's lifetime plus
  :data:`RETENTION`, reset to :data:`RETENTION` when it finishes: a backstop, since the
  sweeper purges finished flows long before.
- ``live:<server hex>:<user hex>`` — a sorted set of the owner's live flows by
  ``expires_at``: ``create_flow(limit=)`` counts it.
- ``expiring`` — every live flow by ``expires_at``; ``finished`` — every finished flow by
  ``updated_at``: what ``expire_flows`` and ``purge_flows`` read, without a SCAN.
- ``secret:<server hex>:<user hex>:<name hex>`` — a hash: the sealed bytes and when; no TTL,
  a vault entry lives until deleted.
- ``ended-session:<id>`` — a browser session that was signed out: the time until which it is
  kept (when it would have expired anyway), and a TTL that drops it then.
- ``finished-feed`` — the pub/sub channel of :class:`~mcp_elicit.stores.FinishFeed`.
- ``task:<id>`` — a hash: a task record's fields (``payload`` the sealed bytes, times as
  ``repr`` of the float) and ``owner_key``, its owner's index. Its TTL, a backstop as for
  flows, is the task's ttl plus :data:`RETENTION`.
- ``tasks-of:<server hex>:<user hex>`` — the owner's tasks by ``created_at`` (ties by id, as
  Redis orders equal scores): the limit's count and ``tasks_of``'s pages.
- ``tasks-lease`` and ``tasks-expiry`` — every live task by ``lease_until`` and by
  ``expires_at``; ``tasks-done`` — every terminal task by ``expires_at``: what
  ``stale_tasks`` and ``purge_tasks`` read, without a SCAN.
- ``task-feed`` — the pub/sub channel of :class:`~mcp_elicit.stores.TaskFeed`.

Every change is one Lua script, so it is atomic on the server: the limit's count and the
insert, a status compare-and-set, a completion with its result and secret, a sweep. The
scripts name keys they build from the prefix, so this is for one Redis (or a primary with
replicas), not Redis Cluster. Durability is Redis' own: run it with ``appendonly yes`` for
flows to survive a restart of Redis (docs/deploy.md).
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Callable, Collection
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlunsplit

from mcp_elicit.stores.contract import (
    FlowExists,
    StoreError,
    TaskExists,
    TooManyFlows,
    TooManyTasks,
)
from mcp_elicit.stores.credentials import read_server_url, without_password
from mcp_elicit.stores.memory import check_session_id, check_task_id, copy_details
from mcp_elicit.stores.records import (
    LIVE,
    FlowRecord,
    FlowStatus,
    SealedSecret,
    TaskRecord,
    is_flow_id,
)

if TYPE_CHECKING:
    from redis.asyncio import Redis

RETENTION: Final = 7 * 86400
"""Seconds a flow's keys outlive its expiry (and its finish) before Redis drops them itself."""

DEFAULT_PREFIX: Final = "mcp-elicit:"
SUBSCRIBE_TIMEOUT_S: Final = 10.0
"""How long the feed waits for Redis to confirm its SUBSCRIBE before calling it lost."""
_OPTIONS: Final = frozenset({"prefix"})

# Lua: the shared helpers, then each operation. Numbers compare as doubles, as in Python.
_FINISH = """
local function finish(flow_key, id, status, now, prefix)
  local live_key = redis.call('HGET', flow_key, 'live_key')
  redis.call('HSET', flow_key, 'status', status, 'updated_at', now)
  if live_key then redis.call('ZREM', live_key, id) end
  redis.call('ZREM', prefix .. 'expiring', id)
  redis.call('ZADD', prefix .. 'finished', now, id)
  redis.call('EXPIRE', flow_key, RETENTION)
end
-- records.LIVE
local function live(status)
  return status == 'pending' or status == 'opened'
end
""".replace("RETENTION", str(RETENTION))

_CREATE = """
-- KEYS: flow, live, expiring, finished; ARGV: id, created_at, expires_at, ttl, limit (''
-- for none), is_live ('1'/'0'), updated_at, then field, value pairs
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
if ARGV[5] ~= '' then
  local n = redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[2], '+inf')
  if n >= tonumber(ARGV[5]) then return -2 end
end
for i = 8, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], 'live_key', KEYS[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])
if ARGV[6] == '1' then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  local ttl = redis.call('TTL', KEYS[2])
  if ttl == -1 or ttl < tonumber(ARGV[4]) then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
else
  redis.call('ZADD', KEYS[4], ARGV[7], ARGV[1])
end
return 1
"""

_SET_STATUS = (
    _FINISH
    + """
-- KEYS: flow; ARGV: id, status, now, expected (comma-separated), prefix
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return nil end
local allowed = false
for s in string.gmatch(ARGV[4], '[^,]+') do if s == status then allowed = true end end
if not allowed then return nil end
if tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[3]) then return nil end
if live(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3])
else
  finish(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[5])
end
return redis.call('HGETALL', KEYS[1])
"""
)

_COMPLETE = (
    _FINISH
    + """
-- KEYS: flow, secret ('' key name when none); ARGV: id, now, prefix, has_result, result,
-- has_secret, then the secret's field, value pairs
local status = redis.call('HGET', KEYS[1], 'status')
if not status or not live(status) then return nil end
if tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[2]) then return nil end
finish(KEYS[1], ARGV[1], 'completed', ARGV[2], ARGV[3])
if ARGV[4] == '1' then redis.call('HSET', KEYS[1], 'result', ARGV[5]) end
if ARGV[6] == '1' then
  redis.call('DEL', KEYS[2])
  for i = 7, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
end
return redis.call('HGETALL', KEYS[1])
"""
)

_EXPIRE = (
    _FINISH
    + """
-- ARGV: now, prefix
local due = redis.call('ZRANGEBYSCORE', ARGV[2] .. 'expiring', '-inf', ARGV[1])
local n = 0
for _, id in ipairs(due) do
  local key = ARGV[2] .. 'flow:' .. id
  local status = redis.call('HGET', key, 'status')
  if status and live(status) then
    finish(key, id, 'expired', ARGV[1], ARGV[2])
    n = n + 1
  else
    redis.call('ZREM', ARGV[2] .. 'expiring', id)
  end
end
return n
"""
)

_PURGE = """
-- ARGV: before, prefix
local old = redis.call('ZRANGEBYSCORE', ARGV[2] .. 'finished', '-inf', '(' .. ARGV[1])
local n = 0
for _, id in ipairs(old) do
  n = n + redis.call('DEL', ARGV[2] .. 'flow:' .. id)
  redis.call('ZREM', ARGV[2] .. 'finished', id)
end
return n
"""


# KEYS: the ended session's key. ARGV: until, the TTL in seconds. Ending a session again never
# shortens what is kept.
_END_SESSION: Final = """
local kept = redis.call('GET', KEYS[1])
if kept and tonumber(kept) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
"""


# Tasks. Every write keeps the three sweep indexes in step with the record's ``terminal``.
_TASK_INDEX = """
local function index(id, terminal, expires_at, lease_until, prefix)
  if terminal == '1' then
    redis.call('ZREM', prefix .. 'tasks-lease', id)
    redis.call('ZREM', prefix .. 'tasks-expiry', id)
    redis.call('ZADD', prefix .. 'tasks-done', expires_at, id)
  else
    redis.call('ZADD', prefix .. 'tasks-lease', lease_until, id)
    redis.call('ZADD', prefix .. 'tasks-expiry', expires_at, id)
    redis.call('ZREM', prefix .. 'tasks-done', id)
  end
end
"""

_CREATE_TASK = (
    _TASK_INDEX
    + """
-- KEYS: task, owner; ARGV: id, ttl, limit ('' for none), created_at, expires_at,
-- lease_until, terminal, prefix, then field, value pairs
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
if ARGV[3] ~= '' and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return -2 end
for i = 9, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], 'owner_key', KEYS[2])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
local ttl = redis.call('TTL', KEYS[2])
if ttl == -1 or ttl < tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
index(ARGV[1], ARGV[7], ARGV[5], ARGV[6], ARGV[8])
return 1
"""
)

_REPLACE_TASK = (
    _TASK_INDEX
    + """
-- KEYS: task; ARGV: id, expected version, version, status, terminal, expires_at,
-- lease_until, payload, prefix
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[3], 'status', ARGV[4], 'terminal', ARGV[5],
  'expires_at', ARGV[6], 'lease_until', ARGV[7], 'payload', ARGV[8])
index(ARGV[1], ARGV[5], ARGV[6], ARGV[7], ARGV[9])
return 1
"""
)

_TASKS_OF = """
-- KEYS: owner; ARGV: after ('' for none), limit, prefix
local n = tonumber(ARGV[2])
if n <= 0 then return {} end
local start = 0
if ARGV[1] ~= '' then
  local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
  if not rank then return {} end
  start = rank + 1
end
local found = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], start, start + n - 1)) do
  local fields = redis.call('HGETALL', ARGV[3] .. 'task:' .. id)
  if #fields > 0 then table.insert(found, fields) end
end
return found
"""

_STALE_TASKS = """
-- ARGV: now, prefix
local seen, ids = {}, {}
local lapsed = redis.call('ZRANGEBYSCORE', ARGV[2] .. 'tasks-lease', '-inf', '(' .. ARGV[1])
local due = redis.call('ZRANGEBYSCORE', ARGV[2] .. 'tasks-expiry', '-inf', ARGV[1])
for _, list in ipairs({lapsed, due}) do
  for _, id in ipairs(list) do
    if not seen[id] then
      seen[id] = true
      if redis.call('EXISTS', ARGV[2] .. 'task:' .. id) == 1 then
        table.insert(ids, id)
      else
        -- dropped by its TTL (the backstop), never purged: forget it here too
        redis.call('ZREM', ARGV[2] .. 'tasks-lease', id)
        redis.call('ZREM', ARGV[2] .. 'tasks-expiry', id)
      end
    end
  end
end
return ids
"""

_PURGE_TASKS = """
-- ARGV: before, prefix
local old = redis.call('ZRANGEBYSCORE', ARGV[2] .. 'tasks-done', '-inf', '(' .. ARGV[1])
local n = 0
for _, id in ipairs(old) do
  local key = ARGV[2] .. 'task:' .. id
  local owner = redis.call('HGET', key, 'owner_key')
  if owner then redis.call('ZREM', owner, id) end
  n = n + redis.call('DEL', key)
  redis.call('ZREM', ARGV[2] .. 'tasks-done', id)
end
return n
"""


def _hex(text: str) -> str:
    return text.encode("utf-8").hex()


def _number(value: float) -> str:
    if not math.isfinite(value):
        raise StoreError(f"times must be finite numbers, not {value!r}")
    return repr(float(value))


class RedisStore:
    """Flows and sealed secrets in Redis; see the module docstring for the keys."""

    def __init__(self, client: Redis, *, url: str, prefix: str = DEFAULT_PREFIX) -> None:
        self._redis = client
        self.url = url
        self.prefix = prefix
        self._closed = False
        self._create = client.register_script(_CREATE)
        self._set_status = client.register_script(_SET_STATUS)
        self._complete = client.register_script(_COMPLETE)
        self._expire = client.register_script(_EXPIRE)
        self._purge = client.register_script(_PURGE)
        self._end_session = client.register_script(_END_SESSION)
        self._create_task = client.register_script(_CREATE_TASK)
        self._replace_task = client.register_script(_REPLACE_TASK)
        self._tasks_of = client.register_script(_TASKS_OF)
        self._stale_tasks = client.register_script(_STALE_TASKS)
        self._purge_tasks = client.register_script(_PURGE_TASKS)

    @classmethod
    def from_url(cls, url: str) -> RedisStore:
        """Open ``redis://[user:password@]host[:port][/db][?prefix=...]`` (or ``rediss://``).
        Connects on first use. Raises :class:`StoreError` for a bad URL, an unknown option,
        or when redis-py is not installed (``pip install 'mcp-elicit[redis]'``)."""
        parts, options = read_server_url(
            url,
            engine="Redis",
            schemes=("redis", "rediss"),
            form="redis://host[:port][/db]",
            options=_OPTIONS,
        )
        prefix = options.get("prefix", DEFAULT_PREFIX)
        if not prefix or any(c.isspace() for c in prefix):
            raise StoreError(f"prefix must be non-empty, without spaces: {prefix!r}")
        try:
            from redis.asyncio import Redis
        except ImportError:
            raise StoreError(
                "the Redis store needs redis-py: pip install 'mcp-elicit[redis]'"
            ) from None
        plain = urlunsplit(parts._replace(query=""))
        client = Redis.from_url(plain, decode_responses=False)
        return cls(client, url=without_password(url), prefix=prefix)

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r})"

    # -- the contract -----------------------------------------------------------------------

    async def create_flow(self, flow: FlowRecord, *, limit: int | None = None) -> None:
        self._check_open()
        details = json.dumps(copy_details(flow.details), allow_nan=False, separators=(",", ":"))
        fields = {
            "id": flow.id,
            "user": flow.user,
            "purpose": flow.purpose,
            "status": FlowStatus(flow.status).value,
            "created_at": _number(flow.created_at),
            "updated_at": _number(flow.updated_at),
            "expires_at": _number(flow.expires_at),
            "details": details,
            "server": flow.server,
        }
        ttl = max(1, math.ceil(flow.expires_at - flow.created_at)) + RETENTION
        args: list[str | int] = [
            flow.id,
            fields["created_at"],
            fields["expires_at"],
            ttl,
            "" if limit is None else limit,
            "1" if FlowStatus(flow.status) in LIVE else "0",
            fields["updated_at"],
        ]
        for name, value in fields.items():
            args += [name, value]
        if not is_flow_id(flow.id):
            raise StoreError(f"not a flow id: {flow.id!r} (letters, digits, '-' and '_')")
        keys = [
            self._flow_key(flow.id),
            self._live_key(flow.server, flow.user),
            self._key("expiring"),
            self._key("finished"),
        ]
        done = await self._run(self._create, keys, args)
        if done == -1:
            raise FlowExists(f"flow {flow.id!r} already exists")
        if done == -2:
            assert limit is not None
            raise TooManyFlows(limit)

    async def get_flow(self, flow_id: str) -> FlowRecord | None:
        self._check_open()
        if not is_flow_id(flow_id):
            return None  # no such flow: see _flow_key
        found = await self._call(self._redis.hgetall(self._flow_key(flow_id)))
        return _record(found, flow_id) if found else None

    async def set_flow_status(
        self,
        flow_id: str,
        status: FlowStatus,
        *,
        expected: Collection[FlowStatus],
        now: float,
    ) -> FlowRecord | None:
        self._check_open()
        if not is_flow_id(flow_id):
            return None
        allowed = ",".join(FlowStatus(s).value for s in expected)
        args = [flow_id, FlowStatus(status).value, _number(now), allowed or "-", self.prefix]
        found = await self._run(self._set_status, [self._flow_key(flow_id)], args)
        return _record(_pairs(found), flow_id) if found else None

    async def complete_flow(
        self,
        flow_id: str,
        *,
        now: float,
        result: bytes | None = None,
        secret: SealedSecret | None = None,
    ) -> FlowRecord | None:
        self._check_open()
        if not is_flow_id(flow_id):
            return None
        args: list[str | bytes] = [
            flow_id,
            _number(now),
            self.prefix,
            "0" if result is None else "1",
            b"" if result is None else bytes(result),
            "0" if secret is None else "1",
        ]
        secret_key = self._key("none")
        if secret is not None:
            secret_key = self._secret_key(secret.server, secret.user, secret.name)
            args += _secret_fields(secret)
        found = await self._run(self._complete, [self._flow_key(flow_id), secret_key], args)
        return _record(_pairs(found), flow_id) if found else None

    async def flow_result(self, flow_id: str) -> bytes | None:
        self._check_open()
        if not is_flow_id(flow_id):
            return None
        found = await self._call(self._redis.hget(self._flow_key(flow_id), "result"))
        return bytes(found) if found is not None else None

    async def expire_flows(self, now: float) -> int:
        self._check_open()
        return int(await self._run(self._expire, [], [_number(now), self.prefix]))

    async def purge_flows(self, before: float) -> int:
        self._check_open()
        return int(await self._run(self._purge, [], [_number(before), self.prefix]))

    async def put_secret(self, secret: SealedSecret) -> None:
        self._check_open()
        key = self._secret_key(secret.server, secret.user, secret.name)
        fields = _secret_fields(secret)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            pipe.hset(key, mapping=dict(zip(fields[::2], fields[1::2], strict=True)))
            await self._call(pipe.execute())

    async def get_secret(self, user: str, name: str, *, server: str) -> SealedSecret | None:
        self._check_open()
        found = await self._call(self._redis.hgetall(self._secret_key(server, user, name)))
        if not found:
            return None
        return SealedSecret(
            user=found[b"user"].decode(),
            name=found[b"name"].decode(),
            sealed=bytes(found[b"sealed"]),
            created_at=float(found[b"created_at"]),
            server=found[b"server"].decode(),
        )

    async def delete_secret(self, user: str, name: str, *, server: str) -> bool:
        self._check_open()
        return bool(await self._call(self._redis.delete(self._secret_key(server, user, name))))

    async def end_session(self, session_id: str, *, until: float, now: float) -> None:
        self._check_open()
        check_session_id(session_id)
        kept, _now = _number(until), _number(now)
        if until <= now:
            return  # it has expired anyway
        # The TTL is counted on the caller's clock, not Redis': the time kept inside decides
        # (session_ended), the TTL only forgets.
        ttl = max(1, math.ceil(until - now))
        await self._run(self._end_session, [self._ended_key(session_id)], [kept, ttl])

    async def session_ended(self, session_id: str, *, now: float) -> bool:
        self._check_open()
        check_session_id(session_id)
        _number(now)
        kept = await self._call(self._redis.get(self._ended_key(session_id)))
        return kept is not None and float(kept) > now

    # -- tasks ------------------------------------------------------------------------------

    async def create_task(self, task: TaskRecord, *, limit: int | None = None) -> None:
        self._check_open()
        check_task_id(task.id)
        times = [_number(t) for t in (task.created_at, task.expires_at, task.lease_until)]
        ttl = max(1, math.ceil(task.expires_at - task.created_at)) + RETENTION
        terminal = "1" if task.terminal else "0"
        args: list[str | int | bytes] = [
            task.id,
            ttl,
            "" if limit is None else limit,
            *times,
            terminal,
            self.prefix,
            *_task_fields(task),
        ]
        keys = [self._task_key(task.id), self._owner_key(task.server, task.user)]
        done = await self._run(self._create_task, keys, args)
        if done == -1:
            raise TaskExists(f"task {task.id!r} already exists")
        if done == -2:
            assert limit is not None
            raise TooManyTasks(limit)

    async def get_task(self, task_id: str) -> TaskRecord | None:
        self._check_open()
        if not is_flow_id(task_id):
            return None
        found = await self._call(self._redis.hgetall(self._task_key(task_id)))
        return _task(found, task_id) if found else None

    async def replace_task(self, task: TaskRecord, *, expected_version: int) -> bool:
        self._check_open()
        if not is_flow_id(task.id):
            return False
        args: list[str | bytes] = [
            task.id,
            str(int(expected_version)),
            str(int(task.version)),
            task.status,
            "1" if task.terminal else "0",
            _number(task.expires_at),
            _number(task.lease_until),
            bytes(task.payload),
            self.prefix,
        ]
        return bool(await self._run(self._replace_task, [self._task_key(task.id)], args))

    async def tasks_of(
        self, server: str, user: str, *, after: str | None = None, limit: int = 100
    ) -> list[TaskRecord]:
        self._check_open()
        if after is not None and not is_flow_id(after):
            return []
        args = ["" if after is None else after, max(limit, 0), self.prefix]
        found = await self._run(self._tasks_of, [self._owner_key(server, user)], args)
        records = [_task(_pairs(fields), None) for fields in found]
        return [r for r in records if r is not None]

    async def stale_tasks(self, now: float) -> list[str]:
        self._check_open()
        ids = await self._run(self._stale_tasks, [], [_number(now), self.prefix])
        return [bytes(i).decode() for i in ids]

    async def purge_tasks(self, before: float) -> int:
        self._check_open()
        return int(await self._run(self._purge_tasks, [], [_number(before), self.prefix]))

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._redis.aclose()

    # -- FinishFeed -------------------------------------------------------------------------

    async def announce_finished(self, flow_id: str) -> None:
        self._check_open()
        await self._call(self._redis.publish(self._key("finished-feed"), flow_id))

    def finished_flows(self, listening: Callable[[], None] | None = None) -> AsyncIterator[str]:
        return self._listen("finished-feed", listening)

    # -- TaskFeed ---------------------------------------------------------------------------

    async def announce_task(self, task_id: str) -> None:
        self._check_open()
        await self._call(self._redis.publish(self._key("task-feed"), task_id))

    def task_changes(self, listening: Callable[[], None] | None = None) -> AsyncIterator[str]:
        return self._listen("task-feed", listening)

    async def _listen(
        self, channel: str, listening: Callable[[], None] | None
    ) -> AsyncIterator[str]:
        """The messages of one pub/sub channel (both feeds)."""
        self._check_open()
        from redis.exceptions import RedisError

        pubsub = self._redis.pubsub()
        try:
            # SUBSCRIBE's reply first: messages published after it are delivered.
            await pubsub.subscribe(self._key(channel))
            confirmed = await pubsub.get_message(timeout=SUBSCRIBE_TIMEOUT_S)
            if confirmed is None or confirmed.get("type") != "subscribe":
                raise StoreError(f"Redis at {self.url}: SUBSCRIBE was not confirmed")
            if listening is not None:
                listening()
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    yield bytes(message["data"]).decode("utf-8", "replace")
        except RedisError as error:
            raise StoreError(f"Redis at {self.url}: {error}") from error
        finally:
            await pubsub.aclose()  # type: ignore[no-untyped-call]

    # -- keys and calls -----------------------------------------------------------------------

    def _key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def _flow_key(self, flow_id: str) -> str:
        # The id goes into the key as it is, so only an id of the minted shape may (callers
        # check is_flow_id): with "P:" and "P:flow:x:" as two deployments' prefixes, the id
        # "x:flow:<id>" would name the second deployment's flow from the first.
        return self._key(f"flow:{flow_id}")

    def _ended_key(self, session_id: str) -> str:
        return self._key(f"ended-session:{session_id}")  # the id's shape was checked

    def _task_key(self, task_id: str) -> str:
        return self._key(f"task:{task_id}")  # the id's shape was checked, as for flows

    def _owner_key(self, server: str, user: str) -> str:
        return self._key(f"tasks-of:{_hex(server)}:{_hex(user)}")

    def _live_key(self, server: str, user: str) -> str:
        return self._key(f"live:{_hex(server)}:{_hex(user)}")

    def _secret_key(self, server: str, user: str, name: str) -> str:
        return self._key(f"secret:{_hex(server)}:{_hex(user)}:{_hex(name)}")

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"store {self.url} is closed")

    async def _run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        return await self._call(script(keys=keys, args=args))

    async def _call(self, awaitable: Any) -> Any:
        from redis.exceptions import RedisError

        try:
            return await awaitable
        except RedisError as error:
            raise StoreError(f"Redis at {self.url}: {error}") from error


def _secret_fields(secret: SealedSecret) -> list[str | bytes]:
    return [
        "user",
        secret.user,
        "name",
        secret.name,
        "server",
        secret.server,
        "sealed",
        bytes(secret.sealed),
        "created_at",
        _number(secret.created_at),
    ]


def _task_fields(task: TaskRecord) -> list[str | bytes]:
    return [
        "id",
        task.id,
        "server",
        task.server,
        "user",
        task.user,
        "version",
        str(int(task.version)),
        "status",
        task.status,
        "terminal",
        "1" if task.terminal else "0",
        "created_at",
        _number(task.created_at),
        "expires_at",
        _number(task.expires_at),
        "lease_until",
        _number(task.lease_until),
        "payload",
        bytes(task.payload),
    ]


def _task(found: dict[bytes, bytes], asked: str | None) -> TaskRecord | None:
    """The task stored in ``found``, if it is the one ``asked`` for (``None``: any)."""
    task_id = found.get(b"id", b"").decode()
    if asked is not None and task_id != asked:
        return None
    try:
        return TaskRecord(
            id=task_id,
            server=found[b"server"].decode(),
            user=found[b"user"].decode(),
            version=int(found[b"version"]),
            status=found[b"status"].decode(),
            terminal=found[b"terminal"] == b"1",
            created_at=float(found[b"created_at"]),
            expires_at=float(found[b"expires_at"]),
            lease_until=float(found[b"lease_until"]),
            payload=bytes(found[b"payload"]),
        )
    except (KeyError, ValueError) as error:
        raise StoreError(f"a task in Redis is damaged: {error!r}") from error


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _record(found: dict[bytes, bytes], asked: str) -> FlowRecord | None:
    """The flow stored in ``found``, if it is the flow ``asked`` for (a key reached some other
    way than by that id names another record: none of ours)."""
    if found.get(b"id", b"").decode() != asked:
        return None
    try:
        details = json.loads(found[b"details"])
        return FlowRecord(
            id=found[b"id"].decode(),
            user=found[b"user"].decode(),
            purpose=found[b"purpose"].decode(),
            status=FlowStatus(found[b"status"].decode()),
            created_at=float(found[b"created_at"]),
            updated_at=float(found[b"updated_at"]),
            expires_at=float(found[b"expires_at"]),
            details=details,
            server=found[b"server"].decode(),
        )
    except (KeyError, ValueError) as error:
        raise StoreError(f"a flow in Redis is damaged: {error!r}") from error
