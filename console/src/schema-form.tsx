import { isCheckbox, type FieldSpec, type FormSpec, type FormValues } from './schema-values.ts';
import { Field } from './ui.tsx';

interface FieldsProps {
  form: FormSpec;
  values: FormValues;
  onChange: (values: FormValues) => void;
  /** Unique on the page: a field's id is `${prefix}-${name}`. */
  prefix: string;
  legend: string;
  /** Secrets: typed unseen, never offered again by the browser. */
  secret?: boolean;
  /** Every field may stay empty, keeping the value the server holds (a change of secrets). */
  keepEmpty?: boolean;
  /** The field found wrong before sending, marked for assistive technology. */
  invalid?: string | null;
}

export function fieldId(prefix: string, name: string): string {
  return `${prefix}-${name || 'value'}`;
}

/** The fields of a kind's settings or secrets, made from its schema (schema-values.ts). */
export function SchemaFields(props: FieldsProps) {
  const { form } = props;
  if (form.fields.length === 0) return null;
  const noteId = `${props.prefix}-note`;
  return (
    <fieldset aria-describedby={form.note ? noteId : undefined}>
      <legend>{props.legend}</legend>
      {form.note ? (
        <p id={noteId} class="muted">
          {form.note}
        </p>
      ) : null}
      {form.fields.map((field) => (
        <SchemaField key={field.name} field={field} {...props} />
      ))}
    </fieldset>
  );
}

function hintOf(field: FieldSpec, keepEmpty: boolean | undefined): string | undefined {
  const parts = [field.hint, field.widget === 'lines' ? 'One per line.' : null, keepEmpty ? 'Empty: the current value stays.' : null].filter(Boolean);
  return parts.length ? parts.map((part) => (/[.!?)]$/.test(part!) ? part : `${part}.`)).join(' ') : undefined;
}

function SchemaField(props: FieldsProps & { field: FieldSpec }) {
  const { field, values, keepEmpty } = props;
  const id = fieldId(props.prefix, field.name);
  const hint = hintOf(field, keepEmpty);
  const value = values[field.name] ?? '';
  const set = (next: string) => props.onChange({ ...values, [field.name]: next });
  const required = field.required && !keepEmpty;
  const common = {
    id,
    'aria-describedby': hint ? `${id}-hint` : undefined,
    'aria-invalid': props.invalid === field.name ? true : undefined,
  };
  if (isCheckbox(field)) {
    return (
      <div class="field">
        <label class="check">
          <input {...common} type="checkbox" checked={value === 'true'} onChange={(event) => set(String(event.currentTarget.checked))} /> {field.label}
        </label>
        {hint ? (
          <small id={`${id}-hint`} class="muted">
            {hint}
          </small>
        ) : null}
      </div>
    );
  }
  let control;
  if (field.widget === 'boolean' || field.widget === 'choice') {
    const options =
      field.widget === 'boolean' ? [['true', 'Yes'] as const, ['false', 'No'] as const] : field.options.map((option) => [option, option] as const);
    control = (
      <select {...common} required={required} value={value} onChange={(event) => set(event.currentTarget.value)}>
        {required ? null : <option value="">{keepEmpty ? 'Unchanged' : 'Not set (the platform’s default)'}</option>}
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
    );
  } else if (field.widget === 'lines' || field.widget === 'json') {
    control = (
      <textarea
        {...common}
        rows={field.widget === 'json' ? 6 : 4}
        cols={48}
        spellcheck={false}
        autocomplete="off"
        required={required}
        value={value}
        onInput={(event) => set(event.currentTarget.value)}
      />
    );
  } else {
    control = (
      <input
        {...common}
        type={props.secret ? 'password' : field.widget === 'url' ? 'url' : 'text'}
        inputMode={field.widget === 'integer' ? 'numeric' : field.widget === 'number' ? 'decimal' : undefined}
        autocomplete={props.secret ? 'off' : undefined}
        spellcheck={false}
        required={required}
        value={value}
        onInput={(event) => set(event.currentTarget.value)}
      />
    );
  }
  return (
    <Field label={field.label} id={id} hint={hint} required={required}>
      {control}
    </Field>
  );
}
