-- jrxe-srd.lua: Wireshark dissector for jrxe's SRD wire protocol (docs/SRD.md, section 2).
--
-- SRD packets are RoCEv2 datagrams (IPv4, UDP destination port 4791, BTH, ..., ICRC) whose BTH
-- opcode is in 0xC0..0xC7 (the manufacturer-specific range, which Wireshark's InfiniBand dissector
-- shows as "Unknown").
--
-- How it hooks in (two modes, chosen by the preference jrxe_srd.takeover_port):
--  * default (FALSE): a postdissector. Wireshark's InfiniBand/RoCEv2 dissector decodes every packet
--    as usual; for a packet whose last BTH opcode is 0xC0..0xC7 and whose BTH starts its UDP
--    payload, this script adds a "jrxe SRD" tree after the InfiniBand one and rewrites the Protocol
--    and Info columns. Every other packet is left exactly as without the script (same tree, same
--    columns, same frame.protocols). Works on whatever UDP port InfiniBand decodes (Decode As).
--  * TRUE: the script takes over UDP port 4791 itself, decodes SRD packets alone (no InfiniBand tree)
--    and hands every other packet to the dissector that had the port before. Cleaner SRD packets,
--    but "jrxe_srd" then shows in frame.protocols of all RoCEv2 packets.
--
-- Load:   tshark -X lua_script:tools/wireshark/jrxe-srd.lua -r capture.pcap
--         (takeover: add -o jrxe_srd.takeover_port:TRUE)
--   or copy into the personal Lua plugins folder (Help > About Wireshark > Folders).
-- Filter: srd (any SRD packet), srd.opcode == 0xc2, srd.psn == 123, srd.malformed, ...
-- Written for Wireshark 4.0 (Lua 5.2); uses no bit library.

local ROCE_PORT = 4791
local SRD_FIRST, SRD_LAST = 0xC0, 0xC7

local BTH_LEN, DETH_LEN, SRDETH_LEN, RETH_LEN, IMMDT_LEN, AETH_LEN = 12, 8, 16, 16, 4, 4
local SACK_LEN, ICRC_LEN = 16, 4

local SRD_SEND, SRD_SEND_WITH_IMM, SRD_WRITE, SRD_WRITE_WITH_IMM = 0xC0, 0xC1, 0xC2, 0xC3
local SRD_READ_REQUEST, SRD_READ_RESPONSE, SRD_ACK, SRD_NAK = 0xC4, 0xC5, 0xC6, 0xC7

local opcode_names = {
    [SRD_SEND] = "SRD_SEND",
    [SRD_SEND_WITH_IMM] = "SRD_SEND_WITH_IMM",
    [SRD_WRITE] = "SRD_WRITE",
    [SRD_WRITE_WITH_IMM] = "SRD_WRITE_WITH_IMM",
    [SRD_READ_REQUEST] = "SRD_READ_REQUEST",
    [SRD_READ_RESPONSE] = "SRD_READ_RESPONSE",
    [SRD_ACK] = "SRD_ACK",
    [SRD_NAK] = "SRD_NAK",
}

-- Headers after the BTH, in wire order, and what follows them ("payload", "sack" or nothing).
local layout = {
    [SRD_SEND]           = { headers = { "deth", "srdeth" },                  body = "payload" },
    [SRD_SEND_WITH_IMM]  = { headers = { "deth", "srdeth", "immdt" },         body = "payload" },
    [SRD_WRITE]          = { headers = { "deth", "srdeth", "reth" },          body = "payload" },
    [SRD_WRITE_WITH_IMM] = { headers = { "deth", "srdeth", "reth", "immdt" }, body = "payload" },
    [SRD_READ_REQUEST]   = { headers = { "deth", "srdeth", "reth" } },
    [SRD_READ_RESPONSE]  = { headers = { "deth", "srdeth" },                  body = "payload" },
    [SRD_ACK]            = { headers = { "deth", "srdeth" },                  body = "sack" },
    [SRD_NAK]            = { headers = { "deth", "srdeth", "aeth" } },
}
local header_len = { deth = DETH_LEN, srdeth = SRDETH_LEN, reth = RETH_LEN, immdt = IMMDT_LEN, aeth = AETH_LEN }

local aeth_types = { [0] = "ACK", [1] = "RNR", [2] = "Reserved", [3] = "NAK" }
local nak_codes = {
    [0] = "PSN sequence error",
    [1] = "Invalid request",
    [2] = "Remote access error",
    [3] = "Remote operational error",
    [4] = "Invalid RD request",
}
-- IBTA RNR timer codes (table 45), milliseconds.
local rnr_ms = { [0] = 655.36, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12, 0.16, 0.24, 0.32, 0.48, 0.64, 0.96,
    1.28, 1.92, 2.56, 3.84, 5.12, 7.68, 10.24, 15.36, 20.48, 30.72, 40.96, 61.44, 81.92, 122.88,
    163.84, 245.76, 327.68, 491.52 }
local rnr_timers = {}
for code = 0, 31 do
    rnr_timers[code] = string.format("%g ms", rnr_ms[code])
end

local srd = Proto.new("jrxe_srd", "jrxe SRD (Scalable Reliable Datagram over RoCEv2)")
srd.prefs.takeover_port = Pref.bool("Take over UDP port 4791", false,
    "Decode SRD packets on UDP port 4791 directly instead of after Wireshark's InfiniBand " ..
    "dissector (SRD packets then show no InfiniBand tree; other packets are handed to it, " ..
    "but list jrxe_srd in frame.protocols)")

local f = {
    -- the protocol as a whole, so that the filter "srd" matches every SRD packet
    srd = ProtoField.none("srd", "jrxe SRD"),
    -- BTH
    bth = ProtoField.none("srd.bth", "Base Transport Header"),
    opcode = ProtoField.uint8("srd.opcode", "OpCode", base.HEX, opcode_names),
    se = ProtoField.bool("srd.se", "Solicited Event", 8, nil, 0x80),
    migreq = ProtoField.bool("srd.migreq", "MigReq", 8, nil, 0x40),
    padcnt = ProtoField.uint8("srd.padcnt", "Pad Count", base.DEC, nil, 0x30),
    tver = ProtoField.uint8("srd.tver", "Transport Header Version", base.DEC, nil, 0x0F),
    pkey = ProtoField.uint16("srd.pkey", "Partition Key", base.HEX),
    bth_resv8a = ProtoField.uint8("srd.bth.reserved", "Reserved (FECN, BECN, resv6)", base.HEX),
    destqp = ProtoField.uint24("srd.destqp", "Destination QP", base.HEX),
    ackreq = ProtoField.bool("srd.ackreq", "Acknowledge Request", 8, nil, 0x80),
    bth_resv7 = ProtoField.uint8("srd.bth.reserved7", "Reserved (7 bits)", base.HEX, nil, 0x7F),
    psn = ProtoField.uint24("srd.psn", "Packet Sequence Number", base.DEC),
    -- DETH
    deth = ProtoField.none("srd.deth", "Datagram Extended Transport Header"),
    qkey = ProtoField.uint32("srd.qkey", "Q_Key", base.HEX),
    path = ProtoField.uint8("srd.path", "Path", base.DEC),
    srcqp = ProtoField.uint24("srd.srcqp", "Source QP", base.HEX),
    -- SRDETH
    srdeth = ProtoField.none("srd.srdeth", "SRD Extended Transport Header"),
    epoch = ProtoField.uint32("srd.epoch", "Epoch", base.HEX),
    flags = ProtoField.uint8("srd.flags", "Flags", base.HEX),
    version = ProtoField.uint8("srd.version", "Version", base.DEC, nil, 0xF0),
    flags_resv = ProtoField.uint8("srd.flags.reserved", "Reserved", base.HEX, nil, 0x0E),
    retx = ProtoField.bool("srd.retx", "Retransmission (RETX)", 8, nil, 0x01),
    base = ProtoField.uint24("srd.base", "Base PSN", base.DEC),
    timestamp = ProtoField.uint32("srd.timestamp", "Timestamp (us)", base.DEC),
    length = ProtoField.uint32("srd.length", "Length", base.DEC),
    -- RETH
    reth = ProtoField.none("srd.reth", "RDMA Extended Transport Header"),
    reth_va = ProtoField.uint64("srd.reth.va", "Virtual Address", base.HEX),
    reth_rkey = ProtoField.uint32("srd.reth.rkey", "Remote Key", base.HEX),
    reth_dmalen = ProtoField.uint32("srd.reth.dmalen", "DMA Length", base.DEC),
    -- ImmDt
    imm = ProtoField.uint32("srd.imm", "Immediate Data", base.HEX),
    -- AETH
    aeth = ProtoField.none("srd.aeth", "ACK Extended Transport Header"),
    aeth_syndrome = ProtoField.uint8("srd.aeth.syndrome", "Syndrome", base.HEX),
    aeth_type = ProtoField.uint8("srd.aeth.type", "Type", base.DEC, aeth_types, 0x60),
    aeth_rnr = ProtoField.uint8("srd.aeth.rnr_timer", "RNR Timer", base.DEC, rnr_timers, 0x1F),
    aeth_nak = ProtoField.uint8("srd.aeth.nak_code", "NAK Code", base.DEC, nak_codes, 0x1F),
    aeth_value = ProtoField.uint8("srd.aeth.value", "Value", base.DEC, nil, 0x1F),
    aeth_msn = ProtoField.uint24("srd.aeth.msn", "Message Sequence Number", base.DEC),
    -- SACK bitmap (ACK payload)
    sack = ProtoField.bytes("srd.sack", "SACK Bitmap"),
    sack_count = ProtoField.uint32("srd.sack.count", "Resolved PSNs (bits set)", base.DEC),
    sack_psn = ProtoField.uint24("srd.sack.psn", "Resolved PSN", base.DEC),
    -- payload, pad, ICRC
    payload = ProtoField.bytes("srd.payload", "Payload"),
    payload_len = ProtoField.uint32("srd.payload_len", "Payload Length", base.DEC),
    pad = ProtoField.bytes("srd.pad", "Pad"),
    icrc = ProtoField.uint32("srd.icrc", "Invariant CRC (not checked)", base.HEX),
    malformed = ProtoField.string("srd.malformed", "Malformed"),
}
srd.fields = {
    f.srd, f.bth, f.opcode, f.se, f.migreq, f.padcnt, f.tver, f.pkey, f.bth_resv8a, f.destqp, f.ackreq,
    f.bth_resv7, f.psn, f.deth, f.qkey, f.path, f.srcqp, f.srdeth, f.epoch, f.flags, f.version,
    f.flags_resv, f.retx, f.base, f.timestamp, f.length, f.reth, f.reth_va, f.reth_rkey, f.reth_dmalen,
    f.imm, f.aeth, f.aeth_syndrome, f.aeth_type, f.aeth_rnr, f.aeth_nak, f.aeth_value, f.aeth_msn,
    f.sack, f.sack_count, f.sack_psn, f.payload, f.payload_len, f.pad, f.icrc, f.malformed,
}

local ei_malformed = ProtoExpert.new("srd.expert.malformed", "Malformed SRD packet",
    expert.group.MALFORMED, expert.severity.ERROR)
local ei_retx = ProtoExpert.new("srd.expert.retx", "SRD retransmission",
    expert.group.SEQUENCE, expert.severity.NOTE)
local ei_nak = ProtoExpert.new("srd.expert.nak", "SRD NAK",
    expert.group.RESPONSE_CODE, expert.severity.WARN)
local ei_cut = ProtoExpert.new("srd.expert.truncated", "SRD packet cut short by the capture's snap length",
    expert.group.UNDECODED, expert.severity.NOTE)
srd.experts = { ei_malformed, ei_retx, ei_nak, ei_cut }

local function popcount8(b)
    local c = 0
    while b > 0 do
        c = c + b % 2
        b = math.floor(b / 2)
    end
    return c
end

local malformed = false

local function mark_malformed(tree, item, reason)
    malformed = true
    local m = tree:add(f.malformed, reason)
    m:set_generated()
    item:add_proto_expert_info(ei_malformed, reason)
end

-- The dissector that had UDP port 4791 before this script (Wireshark's RoCEv2 one).
local udp_port_table = DissectorTable.get("udp.port")
local previous = udp_port_table:get_dissector(ROCE_PORT)
if previous == nil then
    local ok, d = pcall(Dissector.get, "rroce")
    if ok then
        previous = d
    end
end

-- tvb starts at the BTH; len is the UDP payload length (ICRC included), which may exceed tvb:len()
-- in a capture cut by a snap length.
local function dissect_srd(tvb, pinfo, root, opcode, len)
    local name = opcode_names[opcode]
    local lay = layout[opcode]

    malformed = false
    pinfo.cols.protocol:set("SRD")
    local tree = root:add(srd, tvb:range(0, math.min(len, tvb:len())), "jrxe SRD, " .. name)
    if len > tvb:len() then
        tree:append_text(string.format(" [%d of %d bytes captured]", tvb:len(), len))
    end
    local top = tree:add(f.srd, tvb:range(0, 0))
    top:set_hidden()

    -- length needed: BTH, the opcode's headers and the ICRC
    local need = BTH_LEN + ICRC_LEN
    for _, h in ipairs(lay.headers) do
        need = need + header_len[h]
    end
    local short = len < need
    local hdr_end = len - ICRC_LEN          -- headers are decoded only where they fit before the ICRC
    local cap = tvb:len()                   -- bytes captured (less than len when cut by a snap length)
    local cut = false                       -- the capture ends before what is being decoded
    -- the captured part of [at, at + n), or nil when none of it was captured
    local function clip(at, n)
        local m = math.min(n, cap - at)
        if m < n then
            cut = true
        end
        if m <= 0 then
            return nil
        end
        return tvb:range(at, m)
    end

    local info = { name }                  -- name psn qp path len, then the rest
    local extra = {}
    local psn, destqp, path, padcnt

    -- BTH
    if len >= BTH_LEN and cap >= BTH_LEN then
        local b = tree:add(f.bth, tvb:range(0, BTH_LEN))
        b:add(f.opcode, tvb:range(0, 1))
        b:add(f.se, tvb:range(1, 1))
        b:add(f.migreq, tvb:range(1, 1))
        b:add(f.padcnt, tvb:range(1, 1))
        b:add(f.tver, tvb:range(1, 1))
        b:add(f.pkey, tvb:range(2, 2))
        b:add(f.bth_resv8a, tvb:range(4, 1))
        b:add(f.destqp, tvb:range(5, 3))
        b:add(f.ackreq, tvb:range(8, 1))
        b:add(f.bth_resv7, tvb:range(8, 1))
        b:add(f.psn, tvb:range(9, 3))
        padcnt = math.floor(tvb:range(1, 1):uint() / 16) % 4
        destqp = tvb:range(5, 3):uint()
        psn = tvb:range(9, 3):uint()
        info[#info + 1] = string.format("psn=%d qp=0x%x", psn, destqp)
    else
        tree:add(f.opcode, tvb:range(0, 1))
    end

    local off = BTH_LEN
    local retx = false
    for _, h in ipairs(lay.headers) do
        local hl = header_len[h]
        if off + hl > hdr_end then
            break
        end
        if off + hl > cap then
            cut = true
            break
        end
        local r = tvb:range(off, hl)
        if h == "deth" then
            local t = tree:add(f.deth, r)
            t:add(f.qkey, tvb:range(off, 4))
            t:add(f.path, tvb:range(off + 4, 1))
            t:add(f.srcqp, tvb:range(off + 5, 3))
            path = tvb:range(off + 4, 1):uint()
            info[#info + 1] = string.format("path=%d", path)
        elseif h == "srdeth" then
            local t = tree:add(f.srdeth, r)
            t:add(f.epoch, tvb:range(off, 4))
            local fl = t:add(f.flags, tvb:range(off + 4, 1))
            fl:add(f.version, tvb:range(off + 4, 1))
            fl:add(f.flags_resv, tvb:range(off + 4, 1))
            fl:add(f.retx, tvb:range(off + 4, 1))
            t:add(f.base, tvb:range(off + 5, 3))
            t:add(f.timestamp, tvb:range(off + 8, 4))
            t:add(f.length, tvb:range(off + 12, 4))
            if tvb:range(off + 4, 1):uint() % 2 == 1 then
                retx = true
                fl:add_proto_expert_info(ei_retx)
            end
            if opcode == SRD_ACK then
                extra[#extra + 1] = string.format("base=%d", tvb:range(off + 5, 3):uint())
            end
        elseif h == "reth" then
            local t = tree:add(f.reth, r)
            t:add(f.reth_va, tvb:range(off, 8))
            t:add(f.reth_rkey, tvb:range(off + 8, 4))
            t:add(f.reth_dmalen, tvb:range(off + 12, 4))
            extra[#extra + 1] = string.format("va=0x%s rkey=0x%x dmalen=%d",
                tvb:range(off, 8):uint64():tohex():gsub("^0+(.)", "%1"),
                tvb:range(off + 8, 4):uint(), tvb:range(off + 12, 4):uint())
        elseif h == "immdt" then
            tree:add(f.imm, r)
            extra[#extra + 1] = string.format("imm=0x%08x", r:uint())
        elseif h == "aeth" then
            local t = tree:add(f.aeth, r)
            local syn = tvb:range(off, 1):uint()
            local typ = math.floor(syn / 32) % 4
            local value = syn % 32
            t:add(f.aeth_syndrome, tvb:range(off, 1))
            t:add(f.aeth_type, tvb:range(off, 1))
            if typ == 1 then
                t:add(f.aeth_rnr, tvb:range(off, 1))
                extra[#extra + 1] = string.format("RNR timer=%d (%s)", value, rnr_timers[value])
            elseif typ == 3 then
                t:add(f.aeth_nak, tvb:range(off, 1))
                extra[#extra + 1] = string.format("NAK %s", nak_codes[value] or string.format("code %d", value))
            else
                t:add(f.aeth_value, tvb:range(off, 1))
                extra[#extra + 1] = string.format("%s value=%d", aeth_types[typ], value)
            end
            t:add(f.aeth_msn, tvb:range(off + 1, 3))
            t:add_proto_expert_info(ei_nak, "SRD NAK: " .. extra[#extra])
        end
        off = off + hl
    end

    if short then
        mark_malformed(tree, tree, string.format(
            "UDP payload is %d bytes; %s needs at least %d (headers %d + ICRC %d)",
            len, name, need, need - ICRC_LEN, ICRC_LEN))
    else
        -- body: payload / SACK, then pad
        local body_len = len - off - (padcnt or 0) - ICRC_LEN
        if cut then
            -- a header is missing from the capture: only the length is known
            local pl = tree:add(f.payload_len, math.max(body_len, 0))
            pl:set_generated()
        elseif body_len < 0 then
            mark_malformed(tree, tree, string.format(
                "PadCnt %d is longer than the %d bytes between the headers and the ICRC",
                padcnt, len - off - ICRC_LEN))
        else
            if lay.body == "payload" then
                local pl = tree:add(f.payload_len, body_len)
                pl:set_generated()
                local r = body_len > 0 and clip(off, body_len)
                if r then
                    tree:add(f.payload, r)
                end
                info[#info + 1] = string.format("len=%d", body_len)
            elseif lay.body == "sack" then
                local n = math.min(body_len, SACK_LEN, cap - off)
                if n < math.min(body_len, SACK_LEN) then
                    cut = true
                end
                if n > 0 then
                    local s = tree:add(f.sack, tvb:range(off, n))
                    local count = 0
                    local base_psn = tvb:range(BTH_LEN + DETH_LEN + 5, 3):uint()
                    for i = 0, n - 1 do
                        local byte = tvb:range(off + i, 1):uint()
                        count = count + popcount8(byte)
                        for bit = 0, 7 do
                            if math.floor(byte / 2 ^ bit) % 2 == 1 then
                                local it = s:add(f.sack_psn, tvb:range(off + i, 1),
                                    (base_psn + i * 8 + bit) % 16777216)
                                it:append_text(string.format(" (bit %d)", i * 8 + bit))
                                it:set_generated()
                            end
                        end
                    end
                    local c = tree:add(f.sack_count, count)
                    c:set_generated()
                    extra[#extra + 1] = string.format("sacked=%d", count)
                end
                local r = body_len > SACK_LEN and clip(off + SACK_LEN, body_len - SACK_LEN)
                if r then
                    tree:add(f.payload, r)
                end
                local pl = tree:add(f.payload_len, body_len)
                pl:set_generated()
                if body_len ~= SACK_LEN then
                    mark_malformed(tree, tree, string.format(
                        "SRD_ACK payload is %d bytes; the SACK bitmap is exactly %d", body_len, SACK_LEN))
                end
            else
                local pl = tree:add(f.payload_len, body_len)
                pl:set_generated()
                if body_len > 0 then
                    local r = clip(off, body_len)
                    if r then
                        tree:add(f.payload, r)
                    end
                    mark_malformed(tree, tree, string.format(
                        "%s carries no payload but has %d bytes after its headers", name, body_len))
                end
            end
            local r = padcnt and padcnt > 0 and clip(off + body_len, padcnt)
            if r then
                tree:add(f.pad, r)
            end
        end
    end

    if len >= ICRC_LEN and len <= cap then
        tree:add(f.icrc, tvb:range(len - ICRC_LEN, ICRC_LEN))
    elseif len > cap then
        cut = true
    end
    if cut then
        tree:add_proto_expert_info(ei_cut, string.format(
            "Packet size limited during capture: %d of %d bytes captured", cap, len))
    end

    if retx then
        extra[#extra + 1] = "RETX"
    end
    if malformed then
        extra[#extra + 1] = "[Malformed]"
    end
    for _, e in ipairs(extra) do
        info[#info + 1] = e
    end
    pinfo.cols.info:set(table.concat(info, " "))
    return len
end

-- takeover mode: called by UDP for port 4791 with the UDP payload
function srd.dissector(tvb, pinfo, root)
    local len = tvb:len()
    if len < 1 then
        return 0
    end
    local opcode = tvb:range(0, 1):uint()
    if opcode < SRD_FIRST or opcode > SRD_LAST then
        if previous ~= nil then
            return previous:call(tvb, pinfo, root)
        end
        return 0
    end
    return dissect_srd(tvb, pinfo, root, opcode, tvb:reported_len())
end

-- default mode: a postdissector reading what the UDP and InfiniBand dissectors found
local post = Proto.new("jrxe_srd_post", "jrxe SRD (postdissector)")
local fe_udp_payload = Field.new("udp.payload")
local fe_udp_length = Field.new("udp.length")
local fe_ib_opcode = Field.new("infiniband.bth.opcode")

function post.dissector(frame_tvb, pinfo, root)
    -- (in takeover mode SRD packets on port 4791 never reach InfiniBand, so they are not seen here)
    local ops = { fe_ib_opcode() }
    if #ops == 0 then
        return 0
    end
    local op = ops[#ops]
    local opcode = op.value
    if opcode < SRD_FIRST or opcode > SRD_LAST then
        return 0
    end
    local payloads = { fe_udp_payload() }
    local lengths = { fe_udp_length() }
    if #payloads == 0 then
        return 0
    end
    local pl = payloads[#payloads]
    -- the BTH must start the (innermost) UDP payload
    if pl.offset ~= op.offset then
        return 0
    end
    local len = pl.len
    if #lengths == #payloads then
        len = lengths[#lengths].value - 8
    end
    local tvb = pl.range:tvb()
    return dissect_srd(tvb, pinfo, root, opcode, len)
end

register_postdissector(post)

local taken_over = false
function srd.prefs_changed()
    if srd.prefs.takeover_port and not taken_over then
        udp_port_table:add(ROCE_PORT, srd)
        taken_over = true
    elseif not srd.prefs.takeover_port and taken_over then
        if previous ~= nil then
            udp_port_table:add(ROCE_PORT, previous)
        else
            udp_port_table:remove(ROCE_PORT, srd)
        end
        taken_over = false
    end
end
