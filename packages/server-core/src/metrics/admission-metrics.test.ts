import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { admissionMetrics } from './admission-metrics.ts';

/** kube's admission metric names, labels and code truncation, read back from the registry's exposition. */
describe('admissionMetrics', () => {
  it('one set per registry; webhook and policy series under kube’s names and labels; codes above 600 counted as 600', async () => {
    const registry = new Registry();
    const m = admissionMetrics(registry);
    expect(admissionMetrics(registry)).toBe(m);
    m.observeWebhook('hook.example.com', 'validate', 'CREATE', true, 0.02);
    m.webhookRequest('hook.example.com', 'validate', 'CREATE', 999, true);
    m.webhookRejection('hook.example.com', 'validate', 'CREATE', 'calling_webhook_error', 0);
    m.webhookRejection('hook.example.com', 'admit', 'UPDATE', 'no_error', 700);
    m.webhookFailOpen('hook.example.com', 'admit');
    m.policyCheck('p', 'b', 'deny', 0.0001);
    m.policyCheck('p', 'b', 'error', 0.0001);
    m.policyCheck('p', 'b', 'allow', 0.0001, 'out_of_budget');
    const text = await registry.metrics();
    expect(text).toContain(
      'apiserver_admission_webhook_admission_duration_seconds_bucket{le="0.025",name="hook.example.com",type="validate",operation="CREATE",rejected="true"} 1',
    );
    expect(text).toContain(
      'apiserver_admission_webhook_admission_duration_seconds_bucket{le="25",name="hook.example.com",type="validate",operation="CREATE",rejected="true"} 1',
    );
    expect(text).toContain(
      'apiserver_admission_webhook_request_total{name="hook.example.com",type="validate",operation="CREATE",code="600",rejected="true"} 1',
    );
    expect(text).toContain(
      'apiserver_admission_webhook_rejection_count{name="hook.example.com",type="validate",operation="CREATE",error_type="calling_webhook_error",rejection_code="0"} 1',
    );
    expect(text).toContain(
      'apiserver_admission_webhook_rejection_count{name="hook.example.com",type="admit",operation="UPDATE",error_type="no_error",rejection_code="600"} 1',
    );
    expect(text).toContain('apiserver_admission_webhook_fail_open_count{name="hook.example.com",type="admit"} 1');
    expect(text).toContain(
      'apiserver_validating_admission_policy_check_total{policy="p",policy_binding="b",error_type="no_error",enforcement_action="deny"} 1',
    );
    expect(text).toContain(
      'apiserver_validating_admission_policy_check_total{policy="p",policy_binding="b",error_type="invalid_error",enforcement_action="deny"} 1',
    );
    expect(text).toContain(
      'apiserver_validating_admission_policy_check_total{policy="p",policy_binding="b",error_type="out_of_budget",enforcement_action="allow"} 1',
    );
    expect(text).toContain(
      'apiserver_validating_admission_policy_check_duration_seconds_bucket{le="0.001",policy="p",policy_binding="b",error_type="no_error",enforcement_action="deny"} 1',
    );
    // The step summary has no quantiles, as client_golang's default: a sum and a count.
    m.observeStep('admit', 'CREATE', false, 0.001);
    const after = await registry.metrics();
    expect(after).toContain(
      'apiserver_admission_step_admission_duration_seconds_summary_count{type="admit",operation="CREATE",rejected="false"} 1',
    );
    expect(after).not.toContain('apiserver_admission_step_admission_duration_seconds_summary{quantile');
  });
});
