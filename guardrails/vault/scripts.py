"""The vault's Lua scripts: each runs atomically on one thread's vault hash.

The layout they work on is ``guardrails.vault.store``'s; ``REKEY_LUA`` is the rotation's
(``guardrails.vault.rotation``).
"""

from __future__ import annotations

LAYOUT = "2"
"""The vault layout ``ASSIGN_LUA`` marks in ``v:``: every value listed (``k:``), new ones in
``u:``. A vault without the mark was written before; ``guardrails.vault.listing`` lists it."""

# KEYS[1] vault hash; ARGV[1] TTL in ms, ARGV[2] the ring's size r; then per value in reading
# order: its r lookup hmacs (one per key of the ring, the current key's first), type,
# ciphertext, number of name tokens k, and each token's r hmacs. A lookup or token field under
# any key of the ring counts; new fields are written under the current key. A new placeholder
# is listed in ``u:`` (placed, not yet kept: retention settles it); ``v:`` marks the layout.
# Returns per value its placeholder and 1 if it is new, else 0.
ASSIGN_LUA = """
local r = tonumber(ARGV[2])
local function names(prefix, at)
  local list = {}
  for m = 1, r do list[m] = prefix .. ARGV[at + m - 1] end
  return list
end
local function first(fields)
  for m = 1, #fields do
    local value = redis.call('HGET', KEYS[1], fields[m])
    if value then return value, fields[m] end
  end
  return nil, nil
end
local out, fresh = {}, {}
local i = 3
while i <= #ARGV do
  local hfields = names('h:', i)
  i = i + r
  local etype, sealed, k = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  i = i + 3
  local parts = {}
  for j = 1, k do
    parts[j] = names('t:', i)
    i = i + r
  end
  local ph = first(hfields)
  if not ph and #parts > 0 then
    local linked = nil
    for j = 1, #parts do
      local owner = first(parts[j])
      if not owner or owner == '*' or (linked and linked ~= owner) then
        linked = nil
        break
      end
      linked = owner
    end
    if linked then ph = linked end
  end
  if not ph then
    local n = redis.call('HINCRBY', KEYS[1], 'n:' .. etype, 1)
    ph = '<' .. etype .. '_' .. n .. '>'
    local claimed = {hfields[1]}
    for j = 1, #parts do
      local owner, at = first(parts[j])
      if not owner then
        redis.call('HSET', KEYS[1], parts[j][1], ph)
        claimed[#claimed + 1] = parts[j][1]
      elseif owner ~= ph then
        redis.call('HSET', KEYS[1], at, '*')
      end
    end
    local listed = table.concat(claimed, ' ')
    redis.call('HSET', KEYS[1], hfields[1], ph, 'p:' .. ph, sealed, 'k:' .. ph, listed)
    fresh[#fresh + 1] = ph
    out[#out + 1] = ph
    out[#out + 1] = 1
  else
    out[#out + 1] = ph
    out[#out + 1] = 0
  end
end
if #fresh > 0 then
  local unsettled = redis.call('HGET', KEYS[1], 'u:')
  local added = table.concat(fresh, ' ')
  redis.call('HSET', KEYS[1], 'u:', unsettled and (unsettled .. ' ' .. added) or added)
end
redis.call('HSET', KEYS[1], 'v:', '2')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return out
"""


# KEYS[1] vault hash; ARGV the placeholders to keep. Drops every other placeholder's value,
# lookup and name-token fields (an ambiguous token, ``*``, stays ambiguous), and settles ``u:``.
# Returns the number of placeholders dropped.
RETAIN_LUA = """
local keep = {}
for i = 1, #ARGV do keep[ARGV[i]] = true end
local fields = redis.call('HGETALL', KEYS[1])
local drop, dropped = {}, 0
for i = 1, #fields, 2 do
  local name, value = fields[i], fields[i + 1]
  local kind = string.sub(name, 1, 2)
  if kind == 'p:' or kind == 'k:' then
    if not keep[string.sub(name, 3)] then
      drop[#drop + 1] = name
      if kind == 'p:' then dropped = dropped + 1 end
    end
  elseif (kind == 'h:' or kind == 't:') and value ~= '*' and not keep[value] then
    drop[#drop + 1] = name
  end
end
drop[#drop + 1] = 'u:'
for i = 1, #drop, 500 do
  redis.call('HDEL', KEYS[1], unpack(drop, i, math.min(i + 499, #drop)))
end
return dropped
"""


# KEYS[1] vault hash; ARGV[1] '1' to settle (empty ``u:``: the caller looked at those), then
# the placeholders to drop. Each one's value, and the lookup and name-token
# fields it claimed (``k:``) where they still point to it; work in proportion to what is dropped.
# A value stored before ``k:`` existed has no list: its fields are found by a scan.
FORGET_LUA = """
local drop, unlisted, dropped = {}, {}, 0
if ARGV[1] == '1' then drop[1] = 'u:' end
for i = 2, #ARGV do
  local ph = ARGV[i]
  local held = redis.call('HDEL', KEYS[1], 'p:' .. ph) == 1
  if held then dropped = dropped + 1 end
  local claimed = redis.call('HGET', KEYS[1], 'k:' .. ph)
  if claimed then
    for name in string.gmatch(claimed, '%S+') do
      if redis.call('HGET', KEYS[1], name) == ph then drop[#drop + 1] = name end
    end
    drop[#drop + 1] = 'k:' .. ph
  elseif held then
    unlisted[ph] = true
  end
end
if next(unlisted) then
  local fields = redis.call('HGETALL', KEYS[1])
  for i = 1, #fields, 2 do
    local kind = string.sub(fields[i], 1, 2)
    if (kind == 'h:' or kind == 't:') and unlisted[fields[i + 1]] then
      drop[#drop + 1] = fields[i]
    end
  end
end
for i = 1, #drop, 500 do
  redis.call('HDEL', KEYS[1], unpack(drop, i, math.min(i + 499, #drop)))
end
return dropped
"""


# KEYS[1] vault hash. Returns {1 if it exists else 0, the layout mark ``v:``, ``u:``}: what a
# turn learns of its vault before it looks up the values of its message.
PEEK_LUA = """
local marks = redis.call('HMGET', KEYS[1], 'v:', 'u:')
return {redis.call('EXISTS', KEYS[1]), marks[1], marks[2]}
"""


# KEYS[1] vault hash; ARGV[1] field names, space-separated: one argument, where an HMGET of a
# message's hundreds of lookups or an answer's values cost the client one encoding per name.
# Returns each field's value, or false.
FIELDS_LUA = """
local out = {}
for name in string.gmatch(ARGV[1], '%S+') do
  out[#out + 1] = redis.call('HGET', KEYS[1], name)
end
return out
"""


# KEYS[1] vault hash; ARGV[1] the layout mark; then triples (placeholder, a lookup field to add
# or '', the ``k:`` list). Each value still there gets its lookup (unless another value holds
# that field) and its list; then the vault is marked. Returns the number of values listed.
LIST_LUA = """
local listed = 0
for i = 2, #ARGV, 3 do
  local ph, field, claimed = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if redis.call('HEXISTS', KEYS[1], 'p:' .. ph) == 1 then
    if field ~= '' then redis.call('HSETNX', KEYS[1], field, ph) end
    redis.call('HSET', KEYS[1], 'k:' .. ph, claimed)
    listed = listed + 1
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'v:', ARGV[1]) end
return listed
"""


# KEYS[1] vault hash; ARGV[1] the current key's id (hex), ARGV[2] how many values n; then n
# triples (field, its sealed value as read, the value sealed again), then pairs (lookup or
# token field under a previous key, the same under the current key). Each value is replaced
# only if unchanged since the read; a field moves only if it is still there (a token two
# people now claim becomes ``*``); ``k:`` lists follow the moves; ``r:`` records the key.
# A vault erased meanwhile stays erased. Returns {values sealed again, fields moved}.
REKEY_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, 0} end
local n = tonumber(ARGV[2])
local i = 3
local resealed, moved = 0, 0
for j = 1, n do
  local field, old, new = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  i = i + 3
  if redis.call('HGET', KEYS[1], field) == old then
    redis.call('HSET', KEYS[1], field, new)
    resealed = resealed + 1
  end
end
local renamed = {}
while i <= #ARGV do
  local from, to = ARGV[i], ARGV[i + 1]
  i = i + 2
  local value = redis.call('HGET', KEYS[1], from)
  if value then
    local there = redis.call('HGET', KEYS[1], to)
    if not there then
      redis.call('HSET', KEYS[1], to, value)
    elseif there ~= value and string.sub(to, 1, 2) == 't:' then
      redis.call('HSET', KEYS[1], to, '*')
    end
    redis.call('HDEL', KEYS[1], from)
    renamed[from] = to
    moved = moved + 1
  end
end
if moved > 0 then
  local fields = redis.call('HGETALL', KEYS[1])
  for f = 1, #fields, 2 do
    if string.sub(fields[f], 1, 2) == 'k:' then
      local listed, changed = {}, false
      for name in string.gmatch(fields[f + 1], '%S+') do
        if renamed[name] then
          name = renamed[name]
          changed = true
        end
        listed[#listed + 1] = name
      end
      if changed then redis.call('HSET', KEYS[1], fields[f], table.concat(listed, ' ')) end
    end
  end
end
redis.call('HSET', KEYS[1], 'r:', ARGV[1])
return {resealed, moved}
"""


# KEYS[1] the new thread's vault hash; ARGV[1] TTL in ms, ARGV[2] how many counters c; then c
# pairs (an ``n:<TYPE>`` field, the source's last number); then per value: its placeholder,
# its lookup field, its sealed value, the number of name-token fields k and those k fields.
# A fork's values keep their placeholders; a token two of them claim becomes ``*``. Nothing
# is written into a vault that exists already: returns -1; else the number of values copied.
COPY_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local c = tonumber(ARGV[2])
local i = 3
for j = 1, c do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
local copied = 0
while i <= #ARGV do
  local ph, lookup, sealed, k = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  i = i + 4
  local claimed = {lookup}
  for j = 1, k do
    local token = ARGV[i + j - 1]
    local owner = redis.call('HGET', KEYS[1], token)
    if not owner then
      redis.call('HSET', KEYS[1], token, ph)
      claimed[#claimed + 1] = token
    elseif owner ~= ph then
      redis.call('HSET', KEYS[1], token, '*')
    end
  end
  i = i + k
  local listed = table.concat(claimed, ' ')
  redis.call('HSET', KEYS[1], lookup, ph, 'p:' .. ph, sealed, 'k:' .. ph, listed)
  copied = copied + 1
end
redis.call('HSET', KEYS[1], 'v:', '2')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return copied
"""
