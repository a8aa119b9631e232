import { createHash } from 'node:crypto';
import { KEY_SUFFIXES as S } from './key-layout.ts';

/**
 * The Lua scripts behind every RedisStorage operation. Each runs atomically in Redis, so a write's compare-and-set,
 * its revision (INCR), its version, the key indexes and its log entry change together or not at all.
 *
 * Every script takes ARGV[1] = the key prefix and ARGV[2] = the store epoch the caller knows (all but `init` refuse to
 * run under another epoch: the data they would read or write is not the data the caller has seen). Keys are built
 * from the prefix inside the scripts, so a store lives on one Redis server (not a Cluster).
 *
 * Replies are flat arrays of integers and strings. A version member is `<rev>:<json>`, a tombstone `<rev>:`.
 */
export interface LuaScript {
  readonly name: string;
  readonly lua: string;
  /** SHA1 of `lua`, for EVALSHA. */
  readonly sha: string;
}

// Lua 5.1: '\255' is the byte 0xFF, above every byte of a UTF-8 key, so '(' .. prefix .. '\255' ends a prefix range.
const PRELUDE = `
local P = ARGV[1]
local K_REV = P .. ':${S.rev}'
local K_COMPACTED = P .. ':${S.compacted}'
local K_EPOCH = P .. ':${S.epoch}'
local K_LIVE = P .. ':${S.live}'
local K_ALL = P .. ':${S.all}'
local K_LOG = P .. ':${S.log}'
local K_TTL = P .. ':${S.ttl}'
local function okey(k) return P .. ':${S.object}:' .. k end
local function num(v) return tonumber(v) or 0 end
local function split(m)
  local i = string.find(m, ':', 1, true)
  return tonumber(string.sub(m, 1, i - 1)), string.sub(m, i + 1)
end
-- rev and value of a version member; 0 for none or a tombstone
local function alive(m)
  if not m then return 0, nil end
  local r, v = split(m)
  if v == '' then return 0, nil end
  return r, v
end
local function head(k) return alive(redis.call('ZRANGE', okey(k), -1, -1)[1]) end
local function headAt(k, rev) return alive(redis.call('ZREVRANGEBYSCORE', okey(k), rev, '-inf', 'LIMIT', 0, 1)[1]) end
local function badEpoch()
  local e = redis.call('GET', K_EPOCH)
  if e ~= ARGV[2] then return redis.error_reply('KAPI_EPOCH ' .. tostring(e)) end
  return nil
end
-- one write: the next revision, the version, the indexes and the log entry; value '' deletes
local function commit(k, value, prev)
  local rev = redis.call('INCR', K_REV)
  local r = string.format('%d', rev)
  redis.call('ZADD', okey(k), rev, r .. ':' .. value)
  if value == '' then
    redis.call('ZREM', K_LIVE, k)
    redis.call('XADD', K_LOG, r .. '-0', 'k', k, 'p', prev)
  elseif prev then
    redis.call('XADD', K_LOG, r .. '-0', 'k', k, 'v', value, 'p', prev)
  else
    redis.call('ZADD', K_LIVE, 0, k)
    redis.call('ZADD', K_ALL, 0, k)
    redis.call('XADD', K_LOG, r .. '-0', 'k', k, 'v', value)
  end
  -- a TTL belongs to the write that carried it (as an etcd put without the lease drops it)
  redis.call('ZREM', K_TTL, k)
  return rev
end
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

const EPOCH_CHECK = `
local bad = badEpoch()
if bad then return bad end
`;

function script(name: string, body: string, checkEpoch = true): LuaScript {
  const lua = `-- kapi ${name}\n${PRELUDE}${checkEpoch ? EPOCH_CHECK : ''}${body}`;
  return { name, lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * ARGV[2] known epoch ('' at start), [3] a new epoch to use if there is none, [4] the highest revision the caller has
 * seen. Data was lost when the epoch differs from a known one, or is the same but the revision is below one the caller
 * saw (a restart that lost the last writes): then the store gets a new epoch (if it has none yet), and its revision
 * and compaction point are raised above what the caller saw (+2), so no revision it handed out is reused and every
 * old one reads as compacted. → {epoch, 'same' | 'joined' | 'changed', rev, compacted}
 */
export const INIT = script(
  'init',
  `
local e = redis.call('GET', K_EPOCH)
local known = ARGV[2]
local seen = num(ARGV[4])
local status = 'same'
if e and e == known and num(redis.call('GET', K_REV)) < seen then
  redis.call('SET', K_EPOCH, ARGV[3])
  e = ARGV[3]
  status = 'changed'
elseif (not e) or e ~= known then
  if not e then
    redis.call('SET', K_EPOCH, ARGV[3])
    e = ARGV[3]
  end
  if known == '' then status = 'joined' else status = 'changed' end
end
if status == 'changed' and seen > 0 then
  local min = seen + 2
  if num(redis.call('GET', K_REV)) < min then redis.call('SET', K_REV, min) end
  if num(redis.call('GET', K_COMPACTED)) < min then redis.call('SET', K_COMPACTED, min) end
end
return {e, status, num(redis.call('GET', K_REV)), num(redis.call('GET', K_COMPACTED))}
`,
  false,
);

/** → {rev, compacted} */
export const REV = script('rev', `return {num(redis.call('GET', K_REV)), num(redis.call('GET', K_COMPACTED))}`);

/** ARGV[3] key, [4] value, [5] TTL in ms (0 = none). → {1, rev} | {0, existing rev} */
export const CREATE = script(
  'create',
  `
local k = ARGV[3]
local r = head(k)
if r > 0 then return {0, r} end
local rev = commit(k, ARGV[4], nil)
local ttl = num(ARGV[5])
if ttl > 0 then redis.call('ZADD', K_TTL, nowMs() + ttl, k) end
return {1, rev}
`,
);

/**
 * Compare-and-set: ARGV[3] key, [4] the mod revision the caller read (0 = absent), [5] the new value.
 * → {1, rev} | {0, current rev, current value} | {0, 0} when absent
 */
export const UPDATE = script(
  'update',
  `
local k = ARGV[3]
local r, v = head(k)
if r ~= num(ARGV[4]) then
  if r > 0 then return {0, r, v} end
  return {0, 0}
end
return {1, commit(k, ARGV[5], v)}
`,
);

/** ARGV[3] key, [4] the mod revision the caller checked. → {1, rev, last value} | {0, current rev, value} | {-1} */
export const DELETE = script(
  'delete',
  `
local k = ARGV[3]
local r, v = head(k)
if r == 0 then return {-1} end
if r ~= num(ARGV[4]) then return {0, r, v} end
return {1, commit(k, '', v), v}
`,
);

/**
 * ARGV[3] key, [4] revision to read at (0 = latest), [5] lowest acceptable store revision.
 * → {1, read rev, mod rev, value} | {1, read rev} (absent) | {-1, rev, compacted} (revision out of bounds)
 */
export const GET = script(
  'get',
  `
local rev, comp = num(redis.call('GET', K_REV)), num(redis.call('GET', K_COMPACTED))
local at = num(ARGV[4])
if num(ARGV[5]) > rev or (at > 0 and (at > rev or at < comp)) then return {-1, rev, comp} end
local r, v
if at == 0 or at == rev then
  at = rev
  r, v = head(ARGV[3])
else
  r, v = headAt(ARGV[3], at)
end
if r > 0 then return {1, at, r, v} end
return {1, at}
`,
);

/**
 * One batch of a range read at one revision. ARGV[3] first key (inclusive), [4] range prefix, [5] revision (0 =
 * latest), [6] lowest acceptable store revision, [7] most objects to return (0 = all), [8] '1' to count what is left.
 * → {1, read rev, more (1 when objects remain after the batch), remaining (-1 unless counted), key, rev, value, …}
 *   | {-1, rev, compacted}
 */
export const LIST = script(
  'list',
  String.raw`
local rev, comp = num(redis.call('GET', K_REV)), num(redis.call('GET', K_COMPACTED))
local at = num(ARGV[5])
if num(ARGV[6]) > rev or (at > 0 and (at > rev or at < comp)) then return {-1, rev, comp} end
local lo, hi = '[' .. ARGV[3], '(' .. ARGV[4] .. '\255'
local count = num(ARGV[7])
local wantRemaining = ARGV[8] == '1'
local out = {1, 0, 0, -1}
if at == 0 or at == rev then
  out[2] = rev
  local keys
  if count > 0 then
    keys = redis.call('ZRANGEBYLEX', K_LIVE, lo, hi, 'LIMIT', 0, count + 1)
  else
    keys = redis.call('ZRANGEBYLEX', K_LIVE, lo, hi)
  end
  local n = #keys
  if count > 0 and n > count then
    n = count
    out[3] = 1
    if wantRemaining then out[4] = redis.call('ZLEXCOUNT', K_LIVE, lo, hi) - count end
  end
  for i = 1, n do
    local k = keys[i]
    local r, v = head(k)
    if r > 0 then
      out[#out + 1] = k
      out[#out + 1] = r
      out[#out + 1] = v
    end
  end
else
  -- a past revision: walk every key with history and take its newest version at or below it
  out[2] = at
  local found, remaining, cursor, done = 0, 0, lo, false
  while not done do
    local keys = redis.call('ZRANGEBYLEX', K_ALL, cursor, hi, 'LIMIT', 0, 256)
    if #keys == 0 then break end
    for i = 1, #keys do
      local k = keys[i]
      if count > 0 and found >= count then
        local m = redis.call('ZREVRANGEBYSCORE', okey(k), at, '-inf', 'LIMIT', 0, 1)[1]
        if m and string.sub(m, -1) ~= ':' then
          out[3] = 1
          if not wantRemaining then
            done = true
            break
          end
          remaining = remaining + 1
        end
      else
        local r, v = headAt(k, at)
        if r > 0 then
          found = found + 1
          out[#out + 1] = k
          out[#out + 1] = r
          out[#out + 1] = v
        end
      end
    end
    cursor = '(' .. keys[#keys]
  end
  if wantRemaining and out[3] == 1 then out[4] = remaining end
end
return out
`,
);

/** Log entries from revision ARGV[3] to ARGV[4] (inclusive), at most ARGV[5]: XRANGE's reply. */
export const LOG = script('log', `return redis.call('XRANGE', K_LOG, ARGV[3], ARGV[4], 'COUNT', num(ARGV[5]))`);

/** ARGV[3] range prefix. → {number of live objects under it} */
export const COUNT = script('count', String.raw`return {redis.call('ZLEXCOUNT', K_LIVE, '[' .. ARGV[3], '(' .. ARGV[3] .. '\255')}`);

/** Deletes (with a revision and a log entry each) up to ARGV[3] keys whose TTL has passed. → {deleted, due} */
export const SWEEP = script(
  'sweep',
  `
local due = redis.call('ZRANGEBYSCORE', K_TTL, '-inf', nowMs(), 'LIMIT', 0, num(ARGV[3]))
local n = 0
for i = 1, #due do
  local k = due[i]
  local r, v = head(k)
  if r > 0 then
    commit(k, '', v)
    n = n + 1
  else
    redis.call('ZREM', K_TTL, k)
  end
end
return {n, #due}
`,
);

/**
 * Compacts at ARGV[3] (R) one batch of up to ARGV[4] log entries at a time: the keys they name lose the versions
 * superseded at or below R (and a tombstone at or below R), and the entries below R leave the log. State at R and
 * later stays readable. → {1, entries processed, last revision processed} | {-1, rev} when R is in the future
 */
export const COMPACT = script(
  'compact',
  `
local R = num(ARGV[3])
local rev = num(redis.call('GET', K_REV))
if R > rev then return {-1, rev} end
if R > num(redis.call('GET', K_COMPACTED)) then redis.call('SET', K_COMPACTED, R) end
local function clean(k)
  local ok = okey(k)
  local m = redis.call('ZREVRANGEBYSCORE', ok, R, '-inf', 'LIMIT', 0, 1, 'WITHSCORES')
  if not m[1] then return end
  local s = m[2]
  redis.call('ZREMRANGEBYSCORE', ok, '-inf', '(' .. s)
  if string.sub(m[1], -1) == ':' then redis.call('ZREMRANGEBYSCORE', ok, s, s) end
  if redis.call('EXISTS', ok) == 0 then redis.call('ZREM', K_ALL, k) end
end
local entries = redis.call('XRANGE', K_LOG, '-', R, 'COUNT', num(ARGV[4]))
local seen = {}
local last = 0
for i = 1, #entries do
  local k = entries[i][2][2]
  if not seen[k] then
    seen[k] = true
    clean(k)
  end
  last = tonumber(string.match(entries[i][1], '^%d+'))
end
if last > 0 then redis.call('XTRIM', K_LOG, 'MINID', math.min(last + 1, R)) end
return {1, #entries, last}
`,
);
