-- Tags: tag add/remove/get/top.

-- tag <now> add <jid> <tag>... | remove <jid> <tag>... | get <tag> [offset] [count] | top
--     [offset] [count]
-- Replies: add/remove the job's tag list; get {"total","jobs"}; top the tag names used at
-- least twice. Errors: Tag(): Arg "command" must be "add", "remove", "get" or "top" / Tag():
-- First argument must be "add", "remove" or "get" / Tag(): Arg "jid" missing / Tag(): Job
-- <jid> does not exist / Tag(): Arg "tag" missing / Tag(): Arg "offset" not a number: <x> /
-- Tag(): Arg "count" not a number: <x>
function Tags.tag(now)
  local command = A[3]
  if command == nil then error('Tag(): Arg "command" must be "add", "remove", "get" or "top"') end
  if command == 'add' or command == 'remove' then
    local jid = A[4]
    if jid == nil then error('Tag(): Arg "jid" missing') end
    local jk = key.job .. jid
    local text = rcall('HGET', jk, 'tags')
    if not text then error('Tag(): Job ' .. jid .. ' does not exist') end
    local tags = Job.tag_list(text)
    if command == 'add' then
      local present = {}
      for _, t in ipairs(tags) do present[t] = true end
      for i = 5, #A do
        local t = A[i]
        if not present[t] then
          tags[#tags + 1] = t
          present[t] = true
        end
        rcall('ZADD', key.tag .. t, now, jid)
        rcall('ZINCRBY', key.tags, 1, t)
      end
    else
      local drop = {}
      for i = 5, #A do drop[A[i]] = true end
      local kept = {}
      for _, t in ipairs(tags) do
        if not drop[t] then kept[#kept + 1] = t end
      end
      tags = kept
      for i = 5, #A do
        rcall('ZREM', key.tag .. A[i], jid)
        rcall('ZINCRBY', key.tags, -1, A[i])
      end
    end
    local out = encode(tags)
    rcall('HSET', jk, 'tags', out)
    return out
  elseif command == 'get' then
    local tag = A[4]
    if tag == nil then error('Tag(): Arg "tag" missing') end
    local offset = Queue.page_arg(A[5], 0, 'Tag(): Arg "offset" not a number: ')
    local count = Queue.page_arg(A[6], 25, 'Tag(): Arg "count" not a number: ')
    local tk = key.tag .. tag
    return encode({
      total = rcall('ZCARD', tk),
      jobs = rcall('ZRANGE', tk, offset, offset + count - 1),
    })
  elseif command == 'top' then
    local offset = Queue.page_arg(A[4], 0, 'Tag(): Arg "offset" not a number: ')
    local count = Queue.page_arg(A[5], 25, 'Tag(): Arg "count" not a number: ')
    return encode(rcall('ZREVRANGEBYSCORE', key.tags, '+inf', 2, 'LIMIT', offset, count))
  end
  error('Tag(): First argument must be "add", "remove" or "get"')
end
