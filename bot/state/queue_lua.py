"""The turn queue's Lua steps (``bot.state.queue``): each runs atomically in Redis.

Keys and arguments are named at each script. ``owns`` fences every step that acts on a
thread token: only the consumer the token is pending for may act on it.
"""

# A batch of puts (group commit: ``RedisTurnQueue.put``). KEYS[1] payloads, KEYS[2] scheduled,
# then three keys per entry (seen, the thread's list, the token stream); ARGV[1] the dedupe
# ttl, then three arguments per entry (entry, sealed payload, thread id). Per entry: 1
# queued, 0 queued before (a platform's retry).
PUT = """
local out = {}
for i = 0, (#KEYS - 2) / 3 - 1 do
  local k, a = 2 + 3 * i, 1 + 3 * i
  if redis.call('SET', KEYS[k + 1], '1', 'NX', 'EX', ARGV[1]) then
    redis.call('HSET', KEYS[1], ARGV[a + 1], ARGV[a + 2])
    redis.call('RPUSH', KEYS[k + 2], ARGV[a + 1])
    if redis.call('HSETNX', KEYS[2], ARGV[a + 3], '1') == 1 then
      redis.call('XADD', KEYS[k + 3], '*', 't', ARGV[a + 3])
    end
    out[i + 1] = 1
  else
    out[i + 1] = 0
  end
end
return out
"""

# Whether ARGV[2] (a token) is pending for consumer ARGV[3] of group ARGV[1].
OWNS = """
local function owns(stream, group, token, me)
  local p = redis.call('XPENDING', stream, group, token, token, 1)
  return #p == 1 and p[1][2] == me
end
"""

# The next entry of a thread: {-1} the token is not ours; {0} the list is empty (the token
# is released); {1, entry, attempt, sealed} (sealed missing when the payload is gone).
BEGIN = (
    OWNS
    + """
if not owns(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then return {-1} end
local head = redis.call('LINDEX', KEYS[2], 0)
if not head then
  redis.call('HDEL', KEYS[5], ARGV[4])
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
  redis.call('XDEL', KEYS[1], ARGV[2])
  return {0}
end
local attempt = redis.call('HINCRBY', KEYS[4], head, 1)
return {1, head, attempt, redis.call('HGET', KEYS[3], head)}
"""
)

# An entry is done: pop it (if still the head), forget its payload. Then, if we own the
# token: 0 released (list empty), 1 go on, 2 requeued for fairness (ARGV[6] == '1'); -1 if
# the token is not ours any more.
DONE = (
    OWNS
    + """
if redis.call('LINDEX', KEYS[2], 0) == ARGV[5] then redis.call('LPOP', KEYS[2]) end
redis.call('HDEL', KEYS[3], ARGV[5])
redis.call('HDEL', KEYS[4], ARGV[5])
if not owns(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then return -1 end
if redis.call('LLEN', KEYS[2]) == 0 then
  redis.call('HDEL', KEYS[5], ARGV[4])
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
  redis.call('XDEL', KEYS[1], ARGV[2])
  return 0
end
if ARGV[6] == '1' then
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
  redis.call('XDEL', KEYS[1], ARGV[2])
  redis.call('XADD', KEYS[1], '*', 't', ARGV[4])
  return 2
end
return 1
"""
)

# Keep our tokens fresh: XCLAIM (idle reset) each one we still own; returns those we lost.
TOUCH = (
    OWNS
    + """
local lost = {}
for i = 3, #ARGV do
  if owns(KEYS[1], ARGV[1], ARGV[i], ARGV[2]) then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
  else
    table.insert(lost, ARGV[i])
  end
end
return lost
"""
)

# Drop every entry of one thread (its workspace uninstalled the app): KEYS[1] the thread's
# list, KEYS[2] payloads, KEYS[3] attempts. The sealed payloads go with the entries; the
# thread's token, if any, is released by the next worker that begins it (the list is empty).
# Returns the entries dropped.
DROP = """
local entries = redis.call('LRANGE', KEYS[1], 0, -1)
for _, entry in ipairs(entries) do
  redis.call('HDEL', KEYS[2], entry)
  redis.call('HDEL', KEYS[3], entry)
end
redis.call('DEL', KEYS[1])
return entries
"""

# Whether an entry was dropped while its worker ran it: KEYS[1] the stream, KEYS[2] payloads;
# ARGV[1] group, ARGV[2] token, ARGV[3] consumer, ARGV[4] entry. 1 when the token is still
# ours and the entry's payload is gone (while we hold it, only DROP deletes it), else 0: a
# worker that lost the token to another (which answered and deleted it) is not told "dropped".
WITHDRAWN = (
    OWNS
    + """
if owns(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) and redis.call('HEXISTS', KEYS[2], ARGV[4]) == 0 then
  return 1
end
return 0
"""
)
