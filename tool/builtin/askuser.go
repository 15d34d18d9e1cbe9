package builtin

import (
	"context"

	"github.com/novacode/nova/tool"
)

// AskUserQuestionInput is the input of AskUserQuestion.
type AskUserQuestionInput struct {
	Question string   `json:"question" jsonschema:"The question to ask the user: one clear sentence"`
	Options  []string `json:"options,omitempty" jsonschema:"Up to 4 short answers to choose from; the user may also type their own"`
}

// askUser is AskUserQuestion. The loop answers it through a question event
// (it implements tool.Interactive); Run only happens for embedders whose
// loop cannot ask, and says so to the model.
type askUser struct {
	*tool.Typed[AskUserQuestionInput]
}

func (askUser) AsksUser() bool { return true }

// NewAskUserQuestion returns the AskUserQuestion tool.
func NewAskUserQuestion() tool.Tool {
	return askUser{tool.New("AskUserQuestion",
		"Ask the user a question when you need a decision or information only they have, offering a few likely answers. "+
			"Use it sparingly: prefer reasonable defaults for small choices. The user has up to five minutes to answer.",
		true, nil,
		func(ctx context.Context, env *tool.Env, in AskUserQuestionInput) (tool.Result, error) {
			return tool.Errorf("Nobody can answer questions here. Continue with your best judgement and say what you assumed."), nil
		})}
}
