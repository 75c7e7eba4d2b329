// Generates the command structs' members from the flags table
// (cli/flags.def): inside a struct, SG_MEMBERS_BEGIN(NAME) ... turns on
// the rows of NAME, then the table is included with SG_FLAG defined as
// SG_FLAG_MEMBER, and each of those rows declares `TYPE FIELD = INIT;`.
// The rows of every other struct expand to nothing. cli/commands.h and
// cli/flags.h use it; a struct of a lower layer (RunSetup, LoadLimits,
// GeneratorOptions, CampaignSettings, ProviderSource) declares its members
// itself.
#ifndef SLOTGUARD_CLI_FLAG_MEMBERS_H_
#define SLOTGUARD_CLI_FLAG_MEMBERS_H_

#define SG_FLAG_MEMBER(OPTIONS, FIELD, TYPE, INIT, ...) SG_MEMBER_##OPTIONS(TYPE FIELD = INIT;)
#define SG_MEMBER_ON(...) __VA_ARGS__
#define SG_MEMBER_OFF(...)

#define SG_MEMBER_AnyCommand SG_MEMBER_OFF
#define SG_MEMBER_CheckOptions SG_MEMBER_OFF
#define SG_MEMBER_ReplayOptions SG_MEMBER_OFF
#define SG_MEMBER_MutantsOptions SG_MEMBER_OFF
#define SG_MEMBER_FuzzOptions SG_MEMBER_OFF
#define SG_MEMBER_ProveOptions SG_MEMBER_OFF
#define SG_MEMBER_MergeOptions SG_MEMBER_OFF
#define SG_MEMBER_ImportOptions SG_MEMBER_OFF
#define SG_MEMBER_ListOptions SG_MEMBER_OFF
#define SG_MEMBER_BenchOptions SG_MEMBER_OFF
#define SG_MEMBER_WorkerOptions SG_MEMBER_OFF
#define SG_MEMBER_CommonOptions SG_MEMBER_OFF
#define SG_MEMBER_RunSetup SG_MEMBER_OFF
#define SG_MEMBER_LoadLimits SG_MEMBER_OFF
#define SG_MEMBER_GeneratorOptions SG_MEMBER_OFF
#define SG_MEMBER_CampaignSettings SG_MEMBER_OFF
#define SG_MEMBER_ProviderSource SG_MEMBER_OFF

#endif  // SLOTGUARD_CLI_FLAG_MEMBERS_H_
